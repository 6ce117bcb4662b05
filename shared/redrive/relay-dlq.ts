import type { Message, SQSClient } from '@aws-sdk/client-sqs';
import { type OutboxConfig, topicFor } from '../config.js';
import { envelopeProblem } from '../consumer/parse.js';
import { deadLetterEnvelope, isRelayDeadLetter } from '../dead-letter.js';
import { aggregateSequenceOf, type LegacyOutboxEnvelope, type OutboxEnvelope } from '../envelope.js';
import type { PublishBatchClient } from '../relay/types.js';
import { envelopeTrace } from '../tracing/envelope-trace.js';
import { type AggregatePosition, inAggregateOrder } from './aggregate-order.js';
import { checkDeadLetterFilter, type DeadLetterFilter, describeFilter, matchesDeadLetterFilter } from './dead-letter-filter.js';
import { describeDeadLetter } from './dead-letter-info.js';
import { type DrainPlan, drainQueue } from './drain-queue.js';
import { CLIENTS_ALLOWED, checkClients, checkQueueUrl, checkTopicArns, redriveConfig } from './option-checks.js';
import { type BlockedAggregates, publishEvents, type RepublishEvent } from './publish-events.js';
import type { RedriveCommonOptions, RedriveSummary } from './types.js';

/** Options of `redriveRelayDlq`: the relay's dead-letter queue, and the SNS client and topic ARNs its events are republished to. */
export interface RelayDlqRedriveOptions extends RedriveCommonOptions {
  /** The client the relay DLQ is read and deleted from. */
  readonly sqs: SQSClient;
  /** An `SNSClient`, or anything that sends `PublishBatch` like one. */
  readonly sns: PublishBatchClient;
  /** URL of the relay dead-letter queue. */
  readonly queueUrl: string;
  /** Topic name (as in the config) → topic ARN, as the relay has it in `OUTBOX_TOPIC_ARNS`. */
  readonly topicArns: Readonly<Record<string, string>>;
  /**
   * The outbox config, to route a dead letter the relay wrote without a topic (`UNKNOWN_ROUTE`:
   * its aggregate type had no route then) by the envelope's aggregate type, once the route is
   * there. @default none: such dead letters are skipped and stay
   */
  readonly config?: OutboxConfig;
  /**
   * Only dead letters that match are republished; the others are released untouched (visible
   * again, one receive more) and counted in the summary's `unmatched`. @default every dead letter
   */
  readonly filter?: DeadLetterFilter;
}

interface Planned {
  readonly topicArn: string;
  readonly event: Omit<RepublishEvent, 'key'>;
  readonly position: AggregatePosition;
}

/**
 * Why a dead letter whose topic has no ARN stays, and how to move it: the topic, the topics given
 * an ARN, and where its ARN goes. Known only once the letter is read (the relay DLQ holds letters
 * of any topic), it is skipped, not refused: an aggregate's events all go to one topic, so the
 * letters moved meanwhile overtake none of its own.
 */
const noTopicArn = (topic: string, topicArns: Readonly<Record<string, string>>): string =>
  `topic ${JSON.stringify(topic)} has no ARN (given for ${Object.keys(topicArns)
    .map((name) => JSON.stringify(name))
    .join(', ')}); give its ARN too (--topic-arns, default $OUTBOX_TOPIC_ARNS, as the relay has them; topicArns in the API), then redrive`;

function planOf(message: Message, topicArns: Readonly<Record<string, string>>, config: OutboxConfig | undefined): DrainPlan<Planned> {
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
      reason: `${letter.reason} without an envelope (${letter.detail}); the dead letter holds the slot's raw image: write the slot item again, corrected, and the stream takes its events to the relay`,
    };
  }
  // Republished as it was stored: an envelope of an earlier relay keeps its `sequence`.
  let envelope: OutboxEnvelope | LegacyOutboxEnvelope;
  try {
    envelope = JSON.parse(text) as OutboxEnvelope | LegacyOutboxEnvelope;
  } catch {
    return { status: 'skip', reason: 'the envelope is not JSON' };
  }
  const problem = envelopeProblem(envelope);
  if (problem !== undefined) return { status: 'skip', reason: `the envelope is malformed: ${problem}` };
  // No topic recorded: the aggregate type had no route when the relay met it; the config may have one now.
  const topic = letter.topic ?? (config === undefined ? undefined : topicFor(config, envelope.aggregatetype)?.name);
  if (topic === undefined) {
    const why =
      config === undefined
        ? 'give the redrive the config that routes it'
        : `aggregate type ${JSON.stringify(envelope.aggregatetype)} has no route in the config either`;
    return { status: 'skip', reason: `${letter.reason}: no topic recorded (${letter.detail}); ${why}: add the route, then redrive` };
  }
  const topicArn = Object.hasOwn(topicArns, topic) ? topicArns[topic] : undefined;
  if (topicArn === undefined) return { status: 'skip', reason: noTopicArn(topic, topicArns) };
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
        trace: envelopeTrace(envelope),
      },
      position: {
        aggregate: `${envelope.aggregatetype}#${envelope.subject}`,
        sequenceEpoch: envelope.sequenceepoch,
        sequence: aggregateSequenceOf(envelope),
      },
    },
  };
}

/**
 * Republishes the original envelopes held in the relay DLQ to their topics, with the same event
 * ids (so consumer dedup holds and FIFO topics deduplicate), and deletes each dead letter only
 * after its publish succeeded. A dead letter without a topic (`UNKNOWN_ROUTE`) is routed by its
 * envelope's aggregate type through `config`, when given and it has a route now. Dead letters
 * without an envelope, or without a topic and a route, are skipped and stay.
 * Once an event of an aggregate fails, no later dead letter of that aggregate is republished in
 * the run (it fails too, and stays).
 *
 * The DLQ is a standard queue and keeps no order: within each receive, an aggregate's events are
 * published in (`sequenceepoch`, `sequence`) order. An event that comes in a later receive than a
 * later event of its aggregate is still published (holding it back would not undo the other), and
 * the summary notes it.
 *
 * With a `filter`, only the matching dead letters are republished: one cause at a time.
 *
 * @example
 * ```ts
 * const summary = await redriveRelayDlq({ sqs, sns, queueUrl, topicArns: { 'orders.fifo': arn }, ratePerSecond: 100,
 *   filter: { reason: 'PUBLISH_REJECTED', since: new Date('2026-05-01T10:00:00Z') } });
 * console.log(formatSummary(summary));
 * ```
 */
export async function redriveRelayDlq(options: RelayDlqRedriveOptions): Promise<RedriveSummary> {
  checkClients(options, { sqs: CLIENTS_ALLOWED.sqs, sns: CLIENTS_ALLOWED.sns });
  checkQueueUrl(options.queueUrl, 'queueUrl');
  checkTopicArns(options.topicArns);
  checkDeadLetterFilter(options.filter);
  // Given, it routes dead letters the relay wrote without a topic: a null one would fail only at the first of them.
  const config = options.config === undefined ? undefined : redriveConfig(options.config);
  const { filter } = options;
  // One for the whole run: an aggregate whose event failed in one receive stays blocked in the next.
  const blocked: BlockedAggregates = new Map();
  /** Aggregate → the furthest position published in the run, to notice an event that comes after a later one of its aggregate. */
  const furthest = new Map<string, AggregatePosition & { readonly eventId: string }>();
  return drainQueue<Planned>({
    ...options,
    target: Object.values(options.topicArns).join(', '),
    ...(filter === undefined ? {} : { filterText: describeFilter(filter) ?? 'none' }),
    plan: (message) =>
      filter === undefined || matchesDeadLetterFilter(describeDeadLetter(message), filter)
        ? planOf(message, options.topicArns, config)
        : { status: 'leave' },
    republish: async (items) => {
      const byTopic = new Map<string, { messageId: string; item: Planned }[]>();
      for (const entry of items) {
        const list = byTopic.get(entry.item.topicArn) ?? [];
        list.push(entry);
        byTopic.set(entry.item.topicArn, list);
      }
      const succeeded: string[] = [];
      const failed: { id: string; reason: string }[] = [];
      const notes: string[] = [];
      for (const [topicArn, entries] of byTopic) {
        const ordered = inAggregateOrder(entries, (e) => e.item.position);
        const events = ordered.map(({ messageId, item }) => ({ ...item.event, key: messageId }));
        const result = await publishEvents(options.sns, topicArn, events, blocked, { signal: options.signal });
        succeeded.push(...result.succeeded);
        for (const [id, reason] of result.failed) failed.push({ id, reason });
        for (const { messageId, item } of ordered) {
          if (!result.succeeded.has(messageId)) continue;
          const note = noteIfBehind(furthest, item);
          if (note !== undefined) notes.push(note);
        }
      }
      return { succeeded, failed, notes };
    },
  });
}

/** Records a published event's position; a note when a later event of its aggregate was published before it in the run. */
function noteIfBehind(furthest: Map<string, AggregatePosition & { readonly eventId: string }>, item: Planned): string | undefined {
  const { position, event } = item;
  const ahead = furthest.get(position.aggregate);
  const isBehind =
    ahead !== undefined &&
    (ahead.sequenceEpoch > position.sequenceEpoch ||
      (ahead.sequenceEpoch === position.sequenceEpoch && ahead.sequence > position.sequence));
  if (!isBehind) {
    furthest.set(position.aggregate, { ...position, eventId: event.eventId });
    return undefined;
  }
  return `event ${event.eventId} (sequence ${position.sequence}) of aggregate ${position.aggregate} was republished after its later event ${ahead.eventId} (sequence ${ahead.sequence}), which came in an earlier receive: consumers may see them out of order`;
}
