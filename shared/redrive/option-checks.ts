import { snsTopicArnProblem } from '../aws/sns-topic-arn.js';
import { SQS_QUEUE_URL_ALLOWED, sqsQueueUrlFault } from '../aws/sqs-queue-url.js';
import { checkedConfig, configRefusal, type OutboxConfig } from '../config.js';
import { MAX_VISIBILITY_TIMEOUT_SECONDS } from '../consumer/poll-options.js';
import { topicArnFaultWords, topicArnsFault } from '../relay/topic-arns.js';
import { showValue } from '../show-value.js';
import { RedriveOptionsError } from './errors.js';
import type { RedriveCommonOptions } from './types.js';

/**
 * The options every redrive (and `summarizeDlq`) takes, checked before anything is read:
 * `maxMessages` a positive whole number, no more than `Number.MAX_SAFE_INTEGER` (past it a number
 * is not the one written: `2 ** 53 + 1` is `2 ** 53`), as the command line's `--max` is.
 */
export function checkCommonOptions(options: Pick<RedriveCommonOptions, 'maxMessages'>): void {
  if (options.maxMessages !== undefined && (!Number.isSafeInteger(options.maxMessages) || options.maxMessages < 1)) {
    throw new RedriveOptionsError(
      'maxMessages',
      `got ${showValue(options.maxMessages)}; allowed: a positive whole number, at most ${Number.MAX_SAFE_INTEGER}`,
    );
  }
}

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
