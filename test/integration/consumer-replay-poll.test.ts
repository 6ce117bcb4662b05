import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createConsumer } from '../../shared/consumer/consumer.js';
import { pollOnce } from '../../shared/consumer/sqs-poller.js';
import { REPLAY_ATTRIBUTE } from '../../shared/envelope.js';
import { anEnvelope, TEST_SOURCE } from '../helpers/envelopes.js';
import { emulatorForFile, freshTable } from '../helpers/local.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';

const { server, clients } = await emulatorForFile();
let tableName: string;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'consumer-replay-poll'));
});

describe('replayed events received by pollOnce', () => {
  it('asks SQS for the outbox-replay attribute, so a replayed event past a gap reaches the handler marked and raises no gap', async () => {
    const { queueUrl } = server.createQueue('replay-poll');
    const telemetry = recordingTelemetry();
    const replayIds: (string | undefined)[] = [];
    const consumer = createConsumer({
      name: 'replay-poll',
      sources: [TEST_SOURCE],
      handlers: { 'order.placed': { handle: (_event, ctx) => void replayIds.push(ctx.replayId) } },
      inbox: { document: clients.document, tableName },
      sequenceTracking: true,
      logger: telemetry.logger,
      metrics: telemetry.metrics,
    });
    const send = (sequence: number, replayId?: string) =>
      clients.sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: anEnvelope({ aggregateId: 'p-1', sequence }).body,
          ...(replayId === undefined ? {} : { MessageAttributes: { [REPLAY_ATTRIBUTE]: { DataType: 'String', StringValue: replayId } } }),
        }),
      );

    await send(1);
    expect((await pollOnce({ sqs: clients.sqs, queueUrl, consumer, waitTimeSeconds: 1 })).acknowledged).toBe(1);
    await send(3, 'replay-from-archive');
    expect((await pollOnce({ sqs: clients.sqs, queueUrl, consumer, waitTimeSeconds: 1 })).acknowledged).toBe(1);

    expect(replayIds).toEqual([undefined, 'replay-from-archive']);
    expect(telemetry.counts.get('SequenceGaps')).toBeUndefined();
    expect(telemetry.counts.get('ReplayedEvents')).toBe(1);
  });
});
