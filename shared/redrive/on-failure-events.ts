import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { errorName } from '../aws/error-name.js';
import type { BackoffOptions } from '../backoff.js';
import type { OutboxConfig, TopicSettings } from '../config.js';
import type { SlotMessage } from '../envelope.js';
import { PROCESSOR_ORIGIN } from '../on-failure/batch-record.js';
import { counted } from '../plural.js';
import { relayIgnoredAggregateTypes } from '../publishing-paths.js';
import { isTransientReadError, retried } from '../read-retry.js';
import type { DeadLetterFields } from '../relay/dead-letter-sender.js';
import { decodeStreamRecord } from '../relay/decode.js';
import { eventDeadLetter } from '../relay/event-dead-letter.js';
import { describeError } from '../relay/failure-kind.js';
import { laneKey } from '../relay/lanes.js';
import { coordinatesOf, type RecordCoordinates } from '../relay/stream-record.js';
import type { PublishBatchClient } from '../relay/types.js';
import { SLOT_PREFIX } from '../slot.js';
import { TABLE } from '../table.js';
import { envelopeTrace } from '../tracing/envelope-trace.js';
import { StreamRangeIncompleteError } from './errors.js';
import type { RecordPublished } from './kept-records.js';
import { NO_RELAY_DLQ, type OnFailureDeadLetters, type RecordDeadLetter } from './on-failure-dead-letters.js';
import { onFailureRecordProblem, payloadRecords, type StreamInvocationPayload, type StreamOnFailureRecord } from './on-failure-record.js';
import { type BlockedAggregates, publishEvents, type RepublishEvent } from './publish-events.js';
import { readRangeLeft, readStreamRange, STREAM_RETENTION_MS } from './stream-reader.js';

export type TopicEvent = RepublishEvent & {
  readonly topicArn: string;
  /** Its dead letter, as the relay writes one for an event SNS refuses for good (`PUBLISH_REJECTED`). */
  readonly rejected: (detail: string) => DeadLetterFields;
};

/** What an on-failure record holds to republish. */
export type ResolvedRecord =
  /**
   * `letters`: what the relay dead-letters (malformed slots, events without a route), in stream
   * order, sent to the relay DLQ before `events` are published; only when a relay DLQ was given.
   * `trimmed`: the batch is past the 24-hour retention, has no payload and the stream trimmed its
   * first records; `events` are those of the records still there, and `trimmed` says which part is
   * gone. Once they are republished the record stays, as an `expired` one does: nothing more of it
   * can ever be read, and it holds nothing back.
   */
  | { readonly status: 'events'; readonly events: TopicEvent[]; readonly letters: RecordDeadLetter[]; readonly trimmed?: string }
  /**
   * Its events cannot be republished as they are (a malformed slot or no route when no relay DLQ
   * was given): it stays, and so must every later record of its shard, which could hold a later
   * event of its aggregates.
   */
  | { readonly status: 'skip'; readonly reason: string }
  /**
   * Its records are past the stream's 24-hour retention and gone from it, and it has no payload: it stays, but
   * holds nothing back, as its events can never be read again and would block the shard for ever.
   */
  | { readonly status: 'expired'; readonly reason: string }
  /**
   * What the batch held is not known (its stream range could not be read, its payload is
   * malformed): it stays, and so must every later record of its shard, which could overtake it.
   * `transient`: the read failed for a passing reason still there after the retries (throttling, a
   * server or network error), so a later run may read it; otherwise it needs a change first.
   */
  | { readonly status: 'unknown'; readonly reason: string; readonly transient?: boolean };

export interface ResolveOptions {
  readonly streams: DynamoDBStreamsClient;
  readonly config: OutboxConfig;
  /** An ARN for every topic the config routes to: `redriveOnFailure` refuses a run without one before it reads anything. */
  readonly topicArns: Readonly<Record<string, string>>;
  readonly now: () => number;
  readonly retry: BackoffOptions;
  /** The relay DLQ, when given: what the relay dead-letters goes there, and its record moves. */
  readonly deadLetters?: OnFailureDeadLetters | undefined;
}

export type ParsedRecord = { readonly ok: true; readonly record: StreamOnFailureRecord } | { readonly ok: false; readonly reason: string };

/** An on-failure record from the text its destination holds. */
export function parseRecord(text: string): ParsedRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  const problem = onFailureRecordProblem(value);
  return problem === undefined ? { ok: true, record: value as StreamOnFailureRecord } : { ok: false, reason: problem };
}

/**
 * Whether a failed read says the records are no longer in the stream: trimmed, their shard or
 * stream gone, or none of the range there. Not a refusal (no permission, a bad request) nor a
 * passing failure: the records may still be there. Nor a read that stopped short of the batch's
 * end after reading some of it: the stream trims a shard from its oldest record on, so the records
 * after one still there are there too, only not reached.
 */
const recordsGone = (error: unknown): boolean =>
  error instanceof StreamRangeIncompleteError
    ? error.lastRead === undefined
    : ['TrimmedDataAccessException', 'ResourceNotFoundException'].includes(errorName(error));

/** The batch's stream records, and when the stream trimmed its first records, which part is gone. */
type BatchRecords = { status: 'records'; records: StreamInvocationPayload['Records']; trimmed?: string };

/**
 * The batch's stream records: the payload an S3 destination kept, or the stream read again. The
 * stream is read whatever the batch's age: it trims records at some time after 24 h, not at 24 h
 * (and the relay gives a batch up at 24 h by default), from the oldest on. A batch past the
 * retention whose start was trimmed is read from the oldest record left: its later records may be
 * there still. Only a batch past the retention whose read says its records are all gone is `expired`.
 */
async function batchRecords(
  record: StreamOnFailureRecord,
  options: ResolveOptions,
): Promise<BatchRecords | Exclude<ResolvedRecord, { status: 'events' }>> {
  const payload = payloadRecords(record);
  if (payload.status === 'records') return payload;
  if (payload.status === 'malformed') return { status: 'unknown', reason: payload.reason };
  const info = record.DDBStreamBatchInfo;
  // Throttling or a server error is ridden out here; what still fails holds the rest of the shard.
  const read = await retried(() => readStreamRange(options.streams, info), options.retry);
  if (read.ok && read.value.length > 0) return { status: 'records', records: read.value };
  const firstArrival = Date.parse(info.approximateArrivalOfFirstRecord);
  const pastRetention = Number.isFinite(firstArrival) && options.now() - firstArrival > STREAM_RETENTION_MS;
  const retention = `first arrived ${info.approximateArrivalOfFirstRecord}, retention 24 h`;
  let gone = read.ok ? 'none found' : read.reason;
  if (pastRetention && !read.ok && errorName(read.error) === 'TrimmedDataAccessException') {
    const left = await retried(() => readRangeLeft(options.streams, info), options.retry);
    if (left.ok && left.value.records.length > 0) {
      const { records, firstLeft } = left.value;
      if (firstLeft === undefined) return { status: 'records', records };
      const trimmed = `sequence numbers ${info.startSequenceNumber} to just before ${firstLeft} of shard ${info.shardId} were trimmed from the stream (${retention}) and the record has no payload`;
      return { status: 'records', records, trimmed };
    }
    // The start is gone, but what follows it could not be read: it may be there yet.
    if (!left.ok && !recordsGone(left.error)) {
      return {
        status: 'unknown',
        reason: `could not re-read shard ${info.shardId} from its oldest record left: ${left.reason}`,
        transient: isTransientReadError(left.error),
      };
    }
    gone += left.ok ? '; the oldest record left is past its end' : `; from the oldest record left: ${left.reason}`;
  }
  if (pastRetention && (read.ok || recordsGone(read.error))) {
    return { status: 'expired', reason: `the stream no longer holds these records (${retention}: ${gone}) and the record has no payload` };
  }
  if (!read.ok) {
    return {
      status: 'unknown',
      reason: `could not re-read shard ${info.shardId}: ${read.reason}`,
      transient: isTransientReadError(read.error),
    };
  }
  return {
    status: 'unknown',
    reason: `no records found in shard ${info.shardId} from ${info.startSequenceNumber} to ${info.endSequenceNumber}`,
  };
}

/**
 * The outbox events of one on-failure record, decoded as the relay does. Never throws: anything
 * unexpected about the record becomes an `unknown` result with its reason.
 */
export async function resolveRecord(record: StreamOnFailureRecord, options: ResolveOptions): Promise<ResolvedRecord> {
  try {
    const read = await batchRecords(record, options);
    // Only a payload the processor kept is its own records alone; a stream range holds the other path's too.
    const processorPayload = record.origin === PROCESSOR_ORIGIN && payloadRecords(record).status === 'records';
    if (read.status !== 'records') return read;
    const resolved = decodeEvents(read.records, options, processorPayload, record.DDBStreamBatchInfo.streamArn);
    return resolved.status === 'events' && read.trimmed !== undefined ? { ...resolved, trimmed: read.trimmed } : resolved;
  } catch (error) {
    return { status: 'unknown', reason: `could not read the record: ${describeError(error)}` };
  }
}

/** A slot message in the shape the relay's dead-letter builder takes. */
const eventItem = (message: SlotMessage, topic: TopicSettings | undefined) =>
  ({ kind: 'event', recordIndex: 0, message, topic, attempts: 0, alone: false, single: false, rejection: undefined }) as const;

function decodeEvents(
  records: StreamInvocationPayload['Records'],
  options: ResolveOptions,
  fromProcessor: boolean,
  streamArn: string,
): ResolvedRecord {
  // The relay's own selection: the low-latency aggregate types are the stream processor's to
  // publish (it may still be retrying them), and the relay's mapping never hands them over. The
  // processor's records hold only the records it gave up on, of its own types (as they were when
  // it wrote them): all are republished. A handed-over type is the relay's too: its records are republished.
  const selection = { ignoreAggregateTypes: fromProcessor ? [] : relayIgnoredAggregateTypes(options.config) };
  const events: TopicEvent[] = [];
  const letters: RecordDeadLetter[] = [];
  for (const streamRecord of records) {
    const decoded = decodeStreamRecord(streamRecord, options.config, selection);
    if (decoded.status === 'ignored') continue;
    // Read again from the stream, a record names no stream: the batch's.
    const where: RecordCoordinates = { eventSourceArn: streamArn, ...coordinatesOf(streamRecord) };
    if (decoded.status === 'malformed') {
      const pk = (streamRecord.dynamodb?.NewImage?.[TABLE.partitionKey] as { S?: unknown } | undefined)?.S;
      const reason = `malformed outbox slot ${typeof pk === 'string' ? pk : '(no key)'}: ${decoded.problem}`;
      if (options.deadLetters === undefined) return { status: 'skip', reason: `${reason}; ${NO_RELAY_DLQ}` };
      // Its aggregate's place, as the relay's lane of it (a malformed slot's key always starts so).
      const aggregate = typeof pk === 'string' ? pk.slice(SLOT_PREFIX.length) : `(record ${where.sequenceNumber})`;
      letters.push({ aggregate, fields: { reason: 'MALFORMED_SLOT', detail: decoded.problem, record: where, rawImage: decoded.rawImage } });
      continue;
    }
    if (decoded.status === 'unrouted') {
      const reason = `aggregate type ${JSON.stringify(decoded.aggregateType)} has no route`;
      if (options.deadLetters === undefined) return { status: 'skip', reason: `${reason}; ${NO_RELAY_DLQ}` };
      for (const message of decoded.messages) {
        const detail = `aggregate type "${message.aggregateType}" has no route`;
        letters.push({
          aggregate: laneKey(message),
          fields: eventDeadLetter(eventItem(message, undefined), where, 'UNKNOWN_ROUTE', detail),
        });
      }
      continue;
    }
    const { topic } = decoded;
    // A routed topic (decoded events have a route), so one with its ARN: see ResolveOptions.topicArns.
    const topicArn = options.topicArns[topic.name] as string;
    for (const message of decoded.messages) {
      events.push({
        key: `${streamRecord.dynamodb?.SequenceNumber}:${message.id}`,
        topicArn,
        body: message.body,
        eventId: message.id,
        type: message.type,
        aggregateType: message.aggregateType,
        aggregateId: message.aggregateId,
        // The slot event's own trace context, as relay-dlq sends an envelope's: a slot an older write
        // helper or another producer wrote may hold a tracestate without members, or no W3C value.
        trace: envelopeTrace(message),
        rejected: (detail) => eventDeadLetter(eventItem(message, topic), where, 'PUBLISH_REJECTED', detail),
      });
    }
  }
  return { status: 'events', events, letters };
}

/**
 * Sends a record's dead letters (what the relay dead-letters) to the relay DLQ, then publishes its
 * events by topic: how many were published, dead-lettered instead and sent as its dead letters,
 * and when not all went out (published or dead-lettered), the first reason. Every topic's events
 * are tried, so each aggregate that fails is known and `blocked` for the run. An event SNS refuses for good is dead-lettered as the relay
 * does, when a relay DLQ was given; else it fails, saying so.
 */
export async function publishAll(
  sns: PublishBatchClient,
  record: { readonly events: readonly TopicEvent[]; readonly letters: readonly RecordDeadLetter[] },
  blocked: BlockedAggregates,
  { retry, signal, deadLetters }: Pick<ResolveOptions, 'retry' | 'deadLetters'> & { readonly signal?: AbortSignal | undefined },
): Promise<RecordPublished> {
  const { events, letters } = record;
  // Before the events: a later event of an aggregate goes out only once its earlier dead letter is in the DLQ.
  const sentBefore = deadLetters?.sent ?? 0;
  const unsent = letters.length === 0 || deadLetters === undefined ? undefined : await deadLetters.sendAll(letters, blocked);
  const lettersSent = (deadLetters?.sent ?? 0) - sentBefore;
  const onRejected = (event: RepublishEvent, detail: string) =>
    deadLetters === undefined ? Promise.resolve(NO_RELAY_DLQ) : deadLetters.send((event as TopicEvent).rejected(detail));
  const byTopic = new Map<string, TopicEvent[]>();
  for (const event of events) byTopic.set(event.topicArn, [...(byTopic.get(event.topicArn) ?? []), event]);
  let failures = 0;
  let deadLettered = 0;
  let first: string | undefined;
  for (const [topicArn, list] of byTopic) {
    const result = await publishEvents(sns, topicArn, list, blocked, { retry, signal, onRejected });
    failures += result.failed.size;
    deadLettered += result.deadLettered.size;
    const head = result.failed.entries().next();
    if (first === undefined && !head.done) first = `${head.value[0]}: ${head.value[1]}`;
  }
  const published = events.length - failures - deadLettered;
  const problems = [
    ...(unsent === undefined ? [] : [unsent]),
    ...(first === undefined ? [] : [`${failures} of ${counted(events.length, 'event')} failed, first ${first}`]),
  ];
  const outcome = { events: events.length, published, deadLettered, letters: lettersSent };
  return problems.length === 0 ? outcome : { ...outcome, problem: problems.join('; ') };
}
