import type { Message, SQSClient } from '@aws-sdk/client-sqs';
import { envelopeProblem } from '../consumer/parse.js';
import { deadLetterEnvelope, isRelayDeadLetter } from '../dead-letter.js';
import type { OutboxEnvelope } from '../envelope.js';
import type { PublishBatchClient } from '../relay/relay.js';
import { type DrainPlan, drainQueue } from './drain-queue.js';
import { RedriveOptionsError } from './errors.js';
import { type BlockedAggregates, publishEvents, type RepublishEvent } from './publish-events.js';
import type { RedriveCommonOptions, RedriveSummary } from './types.js';

export interface RelayDlqRedriveOptions extends RedriveCommonOptions {
  readonly sqs: SQSClient;
  /** An `SNSClient`, or anything that sends `PublishBatch` like one. */
  readonly sns: PublishBatchClient;
  /** URL of the relay dead-letter queue. */
  readonly queueUrl: string;
  /** Topic name (as in the config) → topic ARN, as the relay has it in `OUTBOX_TOPIC_ARNS`. */
  readonly topicArns: Readonly<Record<string, string>>;
}

interface Planned {
  readonly topicArn: string;
  readonly event: Omit<RepublishEvent, 'key'>;
}

function planOf(message: Message, topicArns: Readonly<Record<string, string>>): DrainPlan<Planned> {
  let letter: unknown;
  try {
    letter = JSON.parse(message.Body ?? '');
  } catch {
    return { status: 'skip', reason: 'not JSON: not a relay dead letter' };
  }
  if (!isRelayDeadLetter(letter)) return { status: 'skip', reason: 'not a relay dead letter (kind is not "outbox-relay-dead-letter")' };
  let text: string | undefined;
  try {
    text = deadLetterEnvelope(letter);
  } catch {
    return { status: 'skip', reason: "the gzip'd envelope (envelopeGzip) does not decompress" };
  }
  if (text === undefined) {
    return {
      status: 'skip',
      reason: `${letter.reason} without an envelope (${letter.detail}); fix the slot, then redrive the on-failure records`,
    };
  }
  if (letter.topic === undefined)
    return { status: 'skip', reason: `${letter.reason}: no topic recorded (${letter.detail}); add the route, then redrive` };
  const topicArn = Object.hasOwn(topicArns, letter.topic) ? topicArns[letter.topic] : undefined;
  if (topicArn === undefined) {
    return {
      status: 'skip',
      reason: `topic ${JSON.stringify(letter.topic)} has no ARN; known: ${Object.keys(topicArns).join(', ') || '(none)'}`,
    };
  }
  let envelope: OutboxEnvelope;
  try {
    envelope = JSON.parse(text) as OutboxEnvelope;
  } catch {
    return { status: 'skip', reason: 'the envelope is not JSON' };
  }
  const problem = envelopeProblem(envelope);
  if (problem !== undefined) return { status: 'skip', reason: `the envelope is malformed: ${problem}` };
  return {
    status: 'republish',
    units: 1,
    item: {
      topicArn,
      event: {
        body: text,
        eventId: envelope.id,
        type: envelope.type,
        aggregateType: envelope.aggregatetype,
        aggregateId: envelope.subject,
      },
    },
  };
}

/**
 * Republishes the original envelopes held in the relay DLQ to their topics, with the same event
 * ids (so consumer dedup holds and FIFO topics deduplicate), and deletes each dead letter only
 * after its publish succeeded. Dead letters without an envelope or topic are skipped and stay.
 * Once an event of an aggregate fails, no later dead letter of that aggregate is republished in
 * the run (it fails too, and stays).
 *
 * @example
 * ```ts
 * const summary = await redriveRelayDlq({ sqs, sns, queueUrl, topicArns: { 'orders.fifo': arn }, ratePerSecond: 100 });
 * console.log(formatSummary(summary));
 * ```
 */
export async function redriveRelayDlq(options: RelayDlqRedriveOptions): Promise<RedriveSummary> {
  if (typeof options.topicArns !== 'object' || options.topicArns === null || Object.keys(options.topicArns).length === 0) {
    throw new RedriveOptionsError(
      'topicArns',
      "is empty; allowed: an object of topic name → topic ARN, e.g. the relay's OUTBOX_TOPIC_ARNS",
    );
  }
  // One for the whole run: an aggregate whose event failed in one receive stays blocked in the next.
  const blocked: BlockedAggregates = new Map();
  return drainQueue<Planned>({
    ...options,
    target: Object.values(options.topicArns).join(', '),
    plan: (message) => planOf(message, options.topicArns),
    republish: async (items) => {
      const byTopic = new Map<string, RepublishEvent[]>();
      for (const { messageId, item } of items) {
        const list = byTopic.get(item.topicArn) ?? [];
        list.push({ ...item.event, key: messageId });
        byTopic.set(item.topicArn, list);
      }
      const succeeded: string[] = [];
      const failed: { id: string; reason: string }[] = [];
      for (const [topicArn, events] of byTopic) {
        const result = await publishEvents(options.sns, topicArn, events, blocked);
        succeeded.push(...result.succeeded);
        for (const [id, reason] of result.failed) failed.push({ id, reason });
      }
      return { succeeded, failed };
    },
  });
}
