import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { OutboxConfig } from '../config.js';
import { decodeStreamRecord } from '../relay/decode.js';
import type { PublishBatchClient } from '../relay/relay.js';
import { TABLE } from '../table.js';
import { checkCommonOptions, drainQueue } from './drain-queue.js';
import { RedriveOptionsError } from './errors.js';
import { onFailureRecordProblem, payloadRecords, type StreamOnFailureRecord } from './on-failure-record.js';
import { type BlockedAggregates, publishEvents, type RepublishEvent } from './publish-events.js';
import { rateLimiter } from './rate-limit.js';
import { readStreamRange, STREAM_RETENTION_MS } from './stream-reader.js';
import type { RedriveCommonOptions, RedriveProblem, RedriveSummary } from './types.js';

/** Where the event source mapping's on-failure destination put its records. */
export type OnFailureSource =
  | { readonly bucket: string; readonly prefix?: string; readonly s3: S3Client; readonly queueUrl?: never; readonly sqs?: never }
  | { readonly queueUrl: string; readonly sqs: SQSClient; readonly bucket?: never; readonly s3?: never };

export interface OnFailureRedriveOptions extends RedriveCommonOptions {
  readonly source: OnFailureSource;
  /** An `SNSClient`, or anything that sends `PublishBatch` like one. */
  readonly sns: PublishBatchClient;
  /** Re-reads the stream when a record holds coordinates only (SQS/SNS destinations). */
  readonly streams: DynamoDBStreamsClient;
  /** Routes aggregate types to topics, as the relay does. */
  readonly config: OutboxConfig;
  /** Topic name → topic ARN. */
  readonly topicArns: Readonly<Record<string, string>>;
  /** @default Date.now */
  readonly now?: () => number;
}

type TopicEvent = RepublishEvent & { readonly topicArn: string };
type Resolved = { readonly ok: true; readonly events: TopicEvent[] } | { readonly ok: false; readonly reason: string };

/** The outbox events of one on-failure record, from its payload or, within 24 h, from the stream. */
async function resolve(record: StreamOnFailureRecord, options: OnFailureRedriveOptions): Promise<Resolved> {
  const info = record.DDBStreamBatchInfo;
  let records = payloadRecords(record);
  if (records === undefined) {
    const firstArrival = Date.parse(info.approximateArrivalOfFirstRecord);
    if (Number.isFinite(firstArrival) && (options.now ?? Date.now)() - firstArrival > STREAM_RETENTION_MS) {
      return {
        ok: false,
        reason: `the stream no longer holds these records (first arrived ${info.approximateArrivalOfFirstRecord}, retention 24 h) and the record has no payload`,
      };
    }
    try {
      records = await readStreamRange(options.streams, info);
    } catch (error) {
      return { ok: false, reason: `could not re-read shard ${info.shardId}: ${(error as Error).message}` };
    }
    if (records.length === 0)
      return {
        ok: false,
        reason: `no records found in shard ${info.shardId} from ${info.startSequenceNumber} to ${info.endSequenceNumber}`,
      };
  }
  // The relay's own selection: the low-latency aggregate types are the stream processor's to
  // publish (it may still be retrying them), and the relay's mapping never hands them over.
  const selection = { ignoreAggregateTypes: options.config.lowLatencyAggregateTypes };
  const events: TopicEvent[] = [];
  for (const streamRecord of records) {
    const decoded = decodeStreamRecord(streamRecord, options.config, selection);
    if (decoded.status === 'ignored') continue;
    if (decoded.status === 'malformed') {
      const pk = (streamRecord.dynamodb?.NewImage?.[TABLE.partitionKey] as { S?: unknown } | undefined)?.S;
      return { ok: false, reason: `malformed outbox slot ${typeof pk === 'string' ? pk : '(no key)'}: ${decoded.problem}` };
    }
    if (decoded.status === 'unrouted') return { ok: false, reason: `aggregate type ${JSON.stringify(decoded.aggregateType)} has no route` };
    const { topic } = decoded;
    const topicArn = Object.hasOwn(options.topicArns, topic.name) ? options.topicArns[topic.name] : undefined;
    if (topicArn === undefined) return { ok: false, reason: `topic ${JSON.stringify(topic.name)} has no ARN` };
    for (const message of decoded.messages) {
      events.push({
        key: `${streamRecord.dynamodb?.SequenceNumber}:${message.id}`,
        topicArn,
        body: message.body,
        eventId: message.id,
        type: message.type,
        aggregateType: message.aggregateType,
        aggregateId: message.aggregateId,
      });
    }
  }
  return { ok: true, events };
}

/**
 * Publishes a record's events by topic; `undefined` when all succeeded, else the first reason.
 * Every topic's events are tried, so each aggregate that fails is known and `blocked` for the run.
 */
async function publishAll(sns: PublishBatchClient, events: readonly TopicEvent[], blocked: BlockedAggregates): Promise<string | undefined> {
  const byTopic = new Map<string, TopicEvent[]>();
  for (const event of events) byTopic.set(event.topicArn, [...(byTopic.get(event.topicArn) ?? []), event]);
  let failures = 0;
  let first: string | undefined;
  for (const [topicArn, list] of byTopic) {
    const { failed } = await publishEvents(sns, topicArn, list, blocked);
    failures += failed.size;
    const head = failed.entries().next();
    if (first === undefined && !head.done) first = `${head.value[0]}: ${head.value[1]}`;
  }
  return first === undefined ? undefined : `${failures} of ${events.length} events failed, first ${first}`;
}

function parseRecord(text: string): { ok: true; record: StreamOnFailureRecord } | { ok: false; reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  const problem = onFailureRecordProblem(value);
  return problem === undefined ? { ok: true, record: value as StreamOnFailureRecord } : { ok: false, reason: problem };
}

async function listKeys(s3: S3Client, bucket: string, prefix: string | undefined, max: number | undefined): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    keys.push(...(page.Contents ?? []).flatMap((o) => (o.Key === undefined ? [] : [o.Key])));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token !== undefined && (max === undefined || keys.length < max));
  return max === undefined ? keys : keys.slice(0, max);
}

async function redriveFromS3(options: OnFailureRedriveOptions, s3: S3Client, bucket: string, prefix?: string): Promise<RedriveSummary> {
  const limiter = rateLimiter(options.ratePerSecond);
  const blocked: BlockedAggregates = new Map();
  const keys = await listKeys(s3, bucket, prefix, undefined);
  const todo = options.maxMessages === undefined ? keys : keys.slice(0, options.maxMessages);
  const failed: RedriveProblem[] = [];
  const skipped: RedriveProblem[] = [];
  let moved = 0;
  let republished = 0;
  let processed = 0;
  for (const key of todo) {
    processed++;
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const parsed = parseRecord((await object.Body?.transformToString()) ?? '');
    const resolved = parsed.ok ? await resolve(parsed.record, options) : parsed;
    if (!resolved.ok) skipped.push({ id: key, reason: resolved.reason });
    else if (options.dryRun) {
      moved++;
      republished += resolved.events.length;
    } else {
      await limiter.take(resolved.events.length);
      const problem = await publishAll(options.sns, resolved.events, blocked);
      if (problem !== undefined) failed.push({ id: key, reason: problem });
      else {
        await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
        moved++;
        republished += resolved.events.length;
      }
    }
    options.onProgress?.({ processed, total: keys.length, moved, failed: failed.length, skipped: skipped.length });
  }
  const after = (await listKeys(s3, bucket, prefix, undefined)).length;
  const source = `s3://${bucket}/${prefix ?? ''}`;
  const target = Object.values(options.topicArns).join(', ');
  return {
    status: options.dryRun ? 'dry-run' : 'completed',
    source,
    target,
    before: keys.length,
    after,
    processed,
    moved,
    republished,
    failed,
    skipped,
  };
}

/**
 * Redrives the relay's event source mapping on-failure records: reads each record's stream
 * records (from an S3 destination's payload, or from the stream while it is within 24 h, to
 * the batch's last sequence number or not at all), decodes the outbox slots as the relay does
 * (leaving the low-latency aggregate types to the stream processor) and republishes their
 * events with the same ids to their topics. A record is deleted from its source only after all
 * its events were published; once an event of an aggregate fails, no later event of that
 * aggregate is published in the run.
 *
 * @example
 * ```ts
 * await redriveOnFailure({ source: { s3, bucket: 'relay-failures' }, sns, streams, config, topicArns });
 * ```
 */
export async function redriveOnFailure(options: OnFailureRedriveOptions): Promise<RedriveSummary> {
  checkCommonOptions(options);
  const { source } = options;
  if (source.bucket !== undefined) return redriveFromS3(options, source.s3, source.bucket, source.prefix);
  if (source.queueUrl === undefined) throw new RedriveOptionsError('source', 'allowed: { bucket, s3, prefix? } or { queueUrl, sqs }');
  const blocked: BlockedAggregates = new Map();
  return drainQueue<TopicEvent[]>({
    ...options,
    sqs: source.sqs,
    queueUrl: source.queueUrl,
    target: Object.values(options.topicArns).join(', '),
    plan: async (message) => {
      const parsed = parseRecord(message.Body ?? '');
      const resolved = parsed.ok ? await resolve(parsed.record, options) : parsed;
      return resolved.ok
        ? { status: 'republish', item: resolved.events, units: resolved.events.length }
        : { status: 'skip', reason: resolved.reason };
    },
    republish: async (items) => {
      const succeeded: string[] = [];
      const failed: RedriveProblem[] = [];
      for (const { messageId, item } of items) {
        const problem = await publishAll(options.sns, item, blocked);
        if (problem === undefined) succeeded.push(messageId);
        else failed.push({ id: messageId, reason: problem });
      }
      return { succeeded, failed };
    },
  });
}
