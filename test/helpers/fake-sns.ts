import type { PublishBatchCommand, PublishBatchCommandOutput, PublishBatchRequestEntry } from '@aws-sdk/client-sns';
import type { SendMessageCommand, SendMessageCommandOutput } from '@aws-sdk/client-sqs';
import type { OutboxConfig } from '../../shared/config.js';
import { type DeadLetterClient, type PublishBatchClient, Relay } from '../../shared/relay/index.js';

/** What happens to one entry or request, decided by the test. */
export type EntryFate = 'ok' | 'transient' | 'permanent' | 'kms';

/** An in-memory SNS for unit tests: records every request and accepts entries as the test decides. */
export class FakeSns implements PublishBatchClient {
  readonly requests: { topicArn: string; entries: PublishBatchRequestEntry[] }[] = [];
  /** Event ids in the order SNS accepted them. */
  readonly accepted: string[] = [];
  inFlight = 0;
  maxInFlight = 0;

  constructor(
    private readonly fate: (entry: PublishBatchRequestEntry) => EntryFate = () => 'ok',
    private readonly requestFate: (entries: readonly PublishBatchRequestEntry[]) => 'ok' | 'throttled' | 'denied' | 'invalid' = () => 'ok',
  ) {}

  async send(command: PublishBatchCommand): Promise<PublishBatchCommandOutput> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    await Promise.resolve();
    this.inFlight--;
    const entries = command.input.PublishBatchRequestEntries ?? [];
    this.requests.push({ topicArn: command.input.TopicArn ?? '', entries });
    const request = this.requestFate(entries);
    if (request === 'throttled')
      throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottledException', $metadata: { httpStatusCode: 400 } });
    if (request === 'invalid')
      throw Object.assign(new Error('Invalid parameter'), { name: 'InvalidParameterException', $metadata: { httpStatusCode: 400 } });
    if (request === 'denied')
      throw Object.assign(new Error('not allowed'), { name: 'AuthorizationErrorException', $metadata: { httpStatusCode: 403 } });
    const output: PublishBatchCommandOutput = { Successful: [], Failed: [], $metadata: {} };
    for (const entry of entries) {
      const fate = this.fate(entry);
      if (fate === 'ok') {
        this.accepted.push(JSON.parse(entry.Message ?? '{}').id);
        output.Successful!.push({ Id: entry.Id, MessageId: `m-${this.accepted.length}` });
      } else {
        output.Failed!.push({
          Id: entry.Id,
          Code: { permanent: 'InvalidParameter', kms: 'KMSDisabled', transient: 'InternalError' }[fate],
          SenderFault: fate !== 'transient',
          Message: fate,
        });
      }
    }
    return output;
  }
}

/** An in-memory SQS for the relay DLQ. */
export class FakeSqs implements DeadLetterClient {
  readonly bodies: string[] = [];
  constructor(private readonly fail = false) {}
  async send(command: SendMessageCommand): Promise<SendMessageCommandOutput> {
    if (this.fail) throw Object.assign(new Error('queue gone'), { name: 'QueueDoesNotExist', $metadata: { httpStatusCode: 400 } });
    this.bodies.push(command.input.MessageBody ?? '');
    return { $metadata: {} };
  }
}

/** A relay over fakes: `sns` for the topics (one ARN per config topic), a FakeSqs for the relay DLQ, millisecond back-off. */
export function fakeRelay(config: OutboxConfig, sns: FakeSns): Relay {
  return new Relay({
    config,
    sns,
    sqs: new FakeSqs(),
    topicArns: Object.fromEntries(config.topics.map((t) => [t.name, `arn:aws:sns:us-east-1:000000000000:${t.name}`])),
    deadLetterQueueUrl: 'http://localhost/000000000000/relay-dlq',
    backoff: { baseDelayMs: 1, maxDelayMs: 2 },
  });
}
