import { SEND_CLIENT_ALLOWED, sendClientFault } from '../aws/send-client.js';
import { snsTopicArnProblem } from '../aws/sns-topic-arn.js';
import { SQS_QUEUE_URL_ALLOWED, sqsQueueUrlFault } from '../aws/sqs-queue-url.js';
import { checkedConfig, configRefusal, type OutboxConfig } from '../config.js';
import { MAX_VISIBILITY_TIMEOUT_SECONDS, MAX_WAIT_TIME_SECONDS } from '../consumer/poll-options.js';
import { topicArnFaultWords, topicArnsFault } from '../relay/topic-arns.js';
import { runOptionFault } from '../run-options.js';
import { showValue } from '../show-value.js';
import { RedriveOptionsError } from './errors.js';

/** The options every redrive (and `summarizeDlq`) takes, as given (a caller without the types may pass anything). */
export interface CommonOptionsGiven {
  readonly maxMessages?: unknown;
  readonly dryRun?: unknown;
  readonly onProgress?: unknown;
  readonly signal?: unknown;
}

/**
 * The options every redrive (and `summarizeDlq`) takes, checked before anything is read:
 * `maxMessages` a positive whole number, no more than `Number.MAX_SAFE_INTEGER` (past it a number
 * is not the one written: `2 ** 53 + 1` is `2 ** 53`), as the command line's `--max` is; `dryRun` a
 * boolean, as `--dry-run` is (a queue redrive took anything but `true` for a real run, the S3 one
 * anything truthy for a dry run); `onProgress` a function (else the run stopped after its first
 * batch had moved); `signal` an AbortSignal ({@link runOptionFault}, the replay's rule too).
 */
export function checkCommonOptions(options: CommonOptionsGiven): void {
  const { maxMessages, dryRun, onProgress, signal } = options;
  if (maxMessages !== undefined && (!Number.isSafeInteger(maxMessages) || (maxMessages as number) < 1)) {
    throw new RedriveOptionsError(
      'maxMessages',
      `got ${showValue(maxMessages)}; allowed: a positive whole number, at most ${Number.MAX_SAFE_INTEGER}`,
    );
  }
  const fault = runOptionFault({ dryRun, onProgress, signal });
  if (fault !== undefined) throw new RedriveOptionsError(fault.field, fault.detail);
}

/**
 * Checks the clients a redrive is given, each `field` → what it may be: an object with a `send`
 * method ({@link sendClientFault}), else the first SQS, SNS or S3 call would fail as a TypeError,
 * after messages were received for some.
 */
export function checkClients(options: object, clients: Readonly<Record<string, string>>): void {
  for (const [field, allowed] of Object.entries(clients)) {
    const given = sendClientFault((options as Record<string, unknown>)[field]);
    if (given !== undefined) throw new RedriveOptionsError(field, `got ${given}; allowed: ${allowed}`);
  }
}

/** What a redrive's clients may be, as its refusals say it. */
export const CLIENTS_ALLOWED = {
  sqs: 'an SQSClient (or anything that sends SQS commands like one)',
  sns: SEND_CLIENT_ALLOWED.sns,
  s3: 'an S3Client (or anything that sends ListObjectsV2, GetObject and DeleteObject like one)',
  streams: SEND_CLIENT_ALLOWED.streams,
} as const;

/**
 * Checks a queue URL a redrive (or `summarizeDlq`) is given, on `field` (`queueUrl`,
 * `targetQueueUrl`, `source.queueUrl`), by the one rule ({@link sqsQueueUrlFault}) the command
 * line's `--queue-url` is checked by: a URL SQS cannot take would otherwise fail only at the first
 * call, as the SDK's error.
 */
export function checkQueueUrl(url: unknown, field: string): void {
  const fault = sqsQueueUrlFault(url);
  if (fault !== undefined) {
    throw new RedriveOptionsError(field, `got ${showValue(url)}, which ${fault}; allowed: ${SQS_QUEUE_URL_ALLOWED}`);
  }
}

/**
 * The first fault of a redrive's topic name → ARN map, by the relay's rule ({@link topicArnsFault}),
 * its entries taken as the topics (of either kind: the kind is checked against a config where the
 * redrive has one): a value that is no SNS topic ARN, or an ARN an earlier topic has too (the events
 * of both would go to that one topic). `given` is the value as shown, with what it shares;
 * `allowed` what it should be.
 */
export function topicArnsProblem(
  topicArns: Readonly<Record<string, unknown>>,
): { readonly topic: string; readonly given: string; readonly allowed: string; readonly shared: boolean } | undefined {
  const fault = topicArnsFault(
    Object.keys(topicArns).map((name) => ({ name })),
    topicArns,
  );
  if (fault === undefined) return undefined;
  if (fault.kind === 'missing') {
    return { topic: fault.topic, given: showValue(undefined), allowed: snsTopicArnProblem(undefined) as string, shared: false };
  }
  const words = topicArnFaultWords(fault);
  return { topic: fault.topic, given: `${showValue(fault.arn)}${words.given}`, allowed: words.allowed, shared: fault.kind === 'shared' };
}

/**
 * Checks the topic name → ARN map a republishing redrive takes, as the relay checks its own
 * ({@link topicArnsProblem}): a wrong value would otherwise fail every publish after the messages
 * were received, and a shared one republish two topics' events to one.
 */
export function checkTopicArns(topicArns: unknown): void {
  if (typeof topicArns !== 'object' || topicArns === null || Object.keys(topicArns).length === 0) {
    throw new RedriveOptionsError(
      'topicArns',
      `got ${showValue(topicArns)}; allowed: an object of topic name → topic ARN, e.g. the relay's OUTBOX_TOPIC_ARNS`,
    );
  }
  const problem = topicArnsProblem(topicArns as Readonly<Record<string, unknown>>);
  if (problem !== undefined) {
    throw new RedriveOptionsError(`topicArns.${problem.topic}`, `got ${problem.given}; allowed: ${problem.allowed}`);
  }
}

/** SQS's long-poll wait of a `ReceiveMessage`, in seconds. */
const WAIT_TIME_RANGE = [0, MAX_WAIT_TIME_SECONDS] as const;

/**
 * Checks a run's `waitTimeSeconds` (the long poll of each receive): SQS takes 0 to 20 seconds, and
 * would refuse another at the first receive, after the queue was counted.
 */
export function checkWaitTimeSeconds(seconds: unknown): void {
  if (
    seconds !== undefined &&
    (!Number.isInteger(seconds) || (seconds as number) < WAIT_TIME_RANGE[0] || (seconds as number) > WAIT_TIME_RANGE[1])
  ) {
    throw new RedriveOptionsError(
      'waitTimeSeconds',
      `got ${showValue(seconds)}; allowed: a whole number of seconds from ${WAIT_TIME_RANGE[0]} to ${WAIT_TIME_RANGE[1]}, or leave it out for 1`,
    );
  }
}

/** Visibility timeouts in seconds: SQS takes 0 to 12 hours, and 0 would hide nothing. */
const VISIBILITY_RANGE = [1, MAX_VISIBILITY_TIMEOUT_SECONDS] as const;

/** The visibility timeout a queue's messages are held with while moved: `seconds`, checked, or 120. */
export function visibilityTimeoutOf(seconds: number = 120): number {
  if (!Number.isInteger(seconds) || seconds < VISIBILITY_RANGE[0] || seconds > VISIBILITY_RANGE[1]) {
    throw new RedriveOptionsError(
      'visibilityTimeoutSeconds',
      `got ${showValue(seconds)}; allowed: a whole number of seconds from ${VISIBILITY_RANGE[0]} to ${VISIBILITY_RANGE[1]}`,
    );
  }
  return seconds;
}

/** A redrive's `config`, checked before anything is read: a RedriveOptionsError names it, what was given and what is allowed. */
export const redriveConfig = (config: unknown): OutboxConfig =>
  checkedConfig(config, (cause) => new RedriveOptionsError('config', configRefusal(cause), { cause }));
