import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { S3_BUCKET_NAME_RULE, s3BucketNameProblem } from '../aws/s3-bucket-name.js';
import { SEND_CLIENT_ALLOWED, sendClientFault } from '../aws/send-client.js';
import { snsTopicArnProblem } from '../aws/sns-topic-arn.js';
import { BACKOFF_DELAY_ALLOWED, type BackoffOptions, isBackoffDelay } from '../backoff.js';
import type { OutboxConfig } from '../config.js';
import { REDRIVE_READ_RETRY } from '../read-retry.js';
import { DEAD_LETTER_QUEUE_URL_ALLOWED, deadLetterQueueUrlFault } from '../relay/dead-letter-sender.js';
import type { PublishBatchClient } from '../relay/types.js';
import { showValue } from '../show-value.js';
import { RedriveOptionsError } from './errors.js';
import { OnFailureDeadLetters, type RelayDeadLetterQueue } from './on-failure-dead-letters.js';
import type { ResolveOptions } from './on-failure-events.js';
import { redriveFromS3 } from './on-failure-s3.js';
import { redriveFromQueue } from './on-failure-sqs.js';
import { CLIENTS_ALLOWED, checkClients, checkCommonOptions, checkQueueUrl, checkTopicArns, redriveConfig } from './option-checks.js';
import type { RedriveCommonOptions, RedriveSummary } from './types.js';

/** Where the event source mapping's on-failure destination put its records. */
export type OnFailureSource =
  | { readonly bucket: string; readonly prefix?: string; readonly s3: S3Client; readonly queueUrl?: never; readonly sqs?: never }
  | { readonly queueUrl: string; readonly sqs: SQSClient; readonly bucket?: never; readonly s3?: never };

/**
 * Options of `redriveOnFailure`: where the stream's on-failure destination put its records, and
 * the clients, config and topic ARNs to republish their events with, as the relay would.
 */
export interface OnFailureRedriveOptions extends RedriveCommonOptions {
  /** The S3 bucket (and prefix) or the SQS queue the records are in. */
  readonly source: OnFailureSource;
  /** An `SNSClient`, or anything that sends `PublishBatch` like one. */
  readonly sns: PublishBatchClient;
  /** Re-reads the stream when a record holds coordinates only (SQS/SNS destinations). */
  readonly streams: DynamoDBStreamsClient;
  /** Routes aggregate types to topics, as the relay does. */
  readonly config: OutboxConfig;
  /** Topic name → topic ARN. */
  readonly topicArns: Readonly<Record<string, string>>;
  /**
   * The relay DLQ. What the relay dead-letters (an event SNS refuses for good, one whose aggregate
   * type has no route, a malformed outbox slot) is then dead-lettered there in the relay's format,
   * and its record moves once the dead letter is sent. Without it, such a record stays (a rejected
   * event fails, an unrouted or malformed record is skipped and holds back the rest of its shard).
   */
  readonly deadLetterQueue?: RelayDeadLetterQueue;
  /** @default Date.now */
  readonly now?: () => number;
  /**
   * Retries of a read that failed for a transient reason (throttling, a server or network error):
   * a stream range, a shard listing, an S3 object; and of an event SNS failed to publish for such
   * a reason. A read that still fails holds back the rest of its shard for the run.
   * @default { maxAttempts: 4, baseDelayMs: 200, maxDelayMs: 5000 }
   */
  readonly retry?: BackoffOptions;
}

/**
 * Every topic the config routes to needs its ARN, of the topic's kind: the relay's own check of
 * its `OUTBOX_TOPIC_ARNS`. A record with an event for a topic without one could never be
 * republished, and would hold back the rest of its shard on every run; an ARN of the other kind
 * would have SNS refuse every event of the topic, and with a relay DLQ dead-letter them all.
 */
function checkRoutedTopics(config: OutboxConfig, topicArns: Readonly<Record<string, string>>): void {
  const routed = [...new Set(Object.values(config.routes))];
  const missing = routed.filter((name) => !Object.hasOwn(topicArns, name));
  if (missing.length > 0) {
    const quoted = (names: readonly string[]) => names.map((name) => JSON.stringify(name)).join(', ');
    const routes = (name: string) => quoted(Object.keys(config.routes).filter((type) => config.routes[type] === name));
    throw new RedriveOptionsError(
      'topicArns',
      `no ARN for ${missing.map((name) => `topic "${name}" (route of aggregate type ${routes(name)})`).join(', ')}; got ARNs for ${quoted(Object.keys(topicArns))}; allowed: an ARN for every topic the config routes to (${quoted(routed)}), as the relay has them in OUTBOX_TOPIC_ARNS`,
    );
  }
  for (const topic of config.topics) {
    const arn = Object.hasOwn(topicArns, topic.name) ? topicArns[topic.name] : undefined;
    const problem = arn === undefined ? undefined : snsTopicArnProblem(arn, topic.fifo);
    if (problem !== undefined) throw new RedriveOptionsError(`topicArns.${topic.name}`, `got ${showValue(arn)}; allowed: ${problem}`);
  }
}

const SOURCE_ALLOWED = 'allowed: { bucket, s3, prefix? } (an S3 destination) or { queueUrl, sqs } (an SQS destination)';

/** Refuses a source that names no destination (no bucket, no queue URL), or none, with what it was. */
function checkSource(source: unknown): void {
  const given = source as { readonly bucket?: unknown; readonly queueUrl?: unknown } | null | undefined;
  const isObject = typeof source === 'object' && source !== null && !Array.isArray(source);
  if (isObject && (given?.bucket !== undefined || given?.queueUrl !== undefined)) return;
  // Its keys only: the clients it holds would show as pages of JSON.
  const shown = isObject ? `an object with neither bucket nor queueUrl (its keys: ${showValue(Object.keys(source))})` : showValue(source);
  throw new RedriveOptionsError('source', `got ${shown}; ${SOURCE_ALLOWED}`);
}

function checkRetry(retry: BackoffOptions): void {
  const { maxAttempts, baseDelayMs, maxDelayMs } = retry;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > 20) {
    throw new RedriveOptionsError(
      'retry.maxAttempts',
      `got ${showValue(maxAttempts)}; allowed: a whole number from 1 to 20 (attempts in all)`,
    );
  }
  for (const [field, value] of [
    ['baseDelayMs', baseDelayMs],
    ['maxDelayMs', maxDelayMs],
  ] as const) {
    if (!isBackoffDelay(value)) {
      throw new RedriveOptionsError(`retry.${field}`, `got ${showValue(value)}; allowed: ${BACKOFF_DELAY_ALLOWED}`);
    }
  }
}

/**
 * Redrives the relay's event source mapping on-failure records: reads each record's stream
 * records (from an S3 destination's payload, or from the stream while it still holds them, to
 * the batch's last sequence number or not at all), decodes the outbox slots as the relay does
 * (leaving the low-latency aggregate types to the stream processor) and republishes their
 * events with the same ids to their topics, in stream order: S3 objects are read for their batch
 * info first and handled per shard by sequence number, parents before children. A record is
 * deleted from its source only after all its events were published; once an event of an
 * aggregate fails, no later event of that aggregate is published in the run, and once a record's
 * events cannot be republished (its stream range cannot be read after retries, its payload or a
 * slot is malformed or a route is missing and no `deadLetterQueue` was given), no later record of its shard or its child
 * shards is (of any shard of its stream that arrived later, when the lineage is not known). Only a
 * record past the 24-hour retention and trimmed from the stream, without a payload, holds nothing back: it can never be read
 * again. A malformed record is reported and kept, never thrown. With `deadLetterQueue`, what the
 * relay dead-letters (a malformed slot, an unrouted event, an event SNS refuses for good) is
 * dead-lettered there as the relay does, before the record is deleted.
 *
 * @example
 * ```ts
 * await redriveOnFailure({ source: { s3, bucket: 'relay-failures' }, sns, streams, config, topicArns });
 * ```
 */
export async function redriveOnFailure(options: OnFailureRedriveOptions): Promise<RedriveSummary> {
  checkCommonOptions(options);
  checkTopicArns(options.topicArns);
  const config = redriveConfig(options.config);
  checkRoutedTopics(config, options.topicArns);
  if (options.retry !== undefined) checkRetry(options.retry);
  const { source, deadLetterQueue } = options;
  checkSource(source);
  if (source.bucket !== undefined) {
    const bucket: unknown = source.bucket;
    const problem = typeof bucket === 'string' ? s3BucketNameProblem(bucket) : 'is not a string';
    if (problem !== undefined)
      throw new RedriveOptionsError(
        'source.bucket',
        `got ${showValue(bucket)}, which ${problem}; allowed: an S3 bucket name: ${S3_BUCKET_NAME_RULE}`,
      );
  }
  if (source.queueUrl !== undefined) checkQueueUrl(source.queueUrl, 'source.queueUrl');
  checkClients(options, { sns: CLIENTS_ALLOWED.sns, streams: CLIENTS_ALLOWED.streams });
  const client = source.bucket === undefined ? 'sqs' : 's3';
  const clientFault = sendClientFault(source[client]);
  if (clientFault !== undefined) {
    throw new RedriveOptionsError(`source.${client}`, `got ${clientFault}; allowed: ${CLIENTS_ALLOWED[client]}`);
  }
  if (deadLetterQueue !== undefined) {
    const sqsFault = sendClientFault((deadLetterQueue as { sqs?: unknown } | null)?.sqs);
    // Else the first dead letter would fail only in the run, once records were read.
    if (deadLetterQueue === null || typeof deadLetterQueue !== 'object' || sqsFault !== undefined) {
      const [field, given] =
        deadLetterQueue === null || typeof deadLetterQueue !== 'object'
          ? ['deadLetterQueue', showValue(deadLetterQueue)]
          : ['deadLetterQueue.sqs', sqsFault];
      throw new RedriveOptionsError(
        field,
        `got ${given}; allowed: { queueUrl, sqs }: the relay DLQ's URL and ${SEND_CLIENT_ALLOWED.deadLetterSqs}`,
      );
    }
    // The relay's own check of its DLQ's URL: a FIFO queue refuses every dead letter.
    const fault = deadLetterQueueUrlFault(deadLetterQueue.queueUrl);
    if (fault !== undefined) {
      throw new RedriveOptionsError(
        'deadLetterQueue.queueUrl',
        `got ${showValue(deadLetterQueue.queueUrl)}, which ${fault}; allowed: ${DEAD_LETTER_QUEUE_URL_ALLOWED}`,
      );
    }
  }
  const retry = options.retry ?? REDRIVE_READ_RETRY;
  const resolveOptions: ResolveOptions = {
    streams: options.streams,
    config,
    topicArns: options.topicArns,
    now: options.now ?? Date.now,
    retry,
    // A dry run sends nothing: a record whose dead letters would be sent counts as one that would move.
    deadLetters: deadLetterQueue === undefined ? undefined : new OnFailureDeadLetters(deadLetterQueue, retry, options.signal),
  };
  const target = Object.values(options.topicArns).join(', ');
  if (source.bucket !== undefined) {
    return redriveFromS3({ ...options, ...resolveOptions, s3: source.s3, bucket: source.bucket, prefix: source.prefix, target });
  }
  // Refused above (checkSource); the type cannot tell.
  if (source.queueUrl === undefined) throw new RedriveOptionsError('source', `got ${showValue(Object.keys(source))}; ${SOURCE_ALLOWED}`);
  return redriveFromQueue({ ...options, ...resolveOptions, sqs: source.sqs, queueUrl: source.queueUrl, target });
}
