/** The options of `pollOnce` and `createPoller` (and the poller's `stop`), checked before anything is received. */

import { sendClientFault } from '../aws/send-client.js';
import { SQS_QUEUE_URL_ALLOWED, sqsQueueUrlFault } from '../aws/sqs-queue-url.js';
import { MAX_BACKOFF_DELAY_MS } from '../backoff.js';
import { methodsFault } from '../methods-fault.js';
import { showValue as show } from '../show-value.js';
import { ConsumerOptionsError } from './errors.js';
import { isRecord, positiveInteger, rejectUnknown, wholeNumberIn } from './option-checks.js';

export const POLL_KEYS = ['sqs', 'queueUrl', 'consumer', 'maxMessages', 'waitTimeSeconds', 'visibilityTimeoutSeconds', 'retryDelaySeconds'];
const POLLER_KEYS = ['concurrency', 'backoff', 'onBatch', 'onError'];
const BACKOFF_KEYS = ['baseDelayMs', 'maxDelayMs'];
/** How long a poller waits after a failed poll: up to 500 ms after the first, doubling up to 30 s. */
export const DEFAULT_POLLER_BACKOFF = { baseDelayMs: 500, maxDelayMs: 30_000 } as const;
/** SQS's longest long poll of a `ReceiveMessage` (its `WaitTimeSeconds`), in seconds. */
export const MAX_WAIT_TIME_SECONDS = 20;
/** SQS's longest visibility timeout: 12 hours. */
export const MAX_VISIBILITY_TIMEOUT_SECONDS = 43_200;
/**
 * The shortest visibility timeout a poll takes. A batch's claims lapse up to 2 s before its
 * visibility timeout ends (the 1 s hand-out margin, then rounding down to the second): at 2 s or
 * less a claim could lapse before its handler even started, or at once after, and at 0 or 1 s
 * after a long poll every claim-mode message would fail with `CLAIM_DEADLINE_PASSED`.
 */
export const MIN_VISIBILITY_TIMEOUT_SECONDS = 3;
/**
 * The longest `stop({ timeoutMs })` waits for the batches in flight, in ms: SQS's longest visibility
 * timeout, by which every unacknowledged message of those batches is visible again anyway. Past
 * 2^31 - 1 ms a timer would fire at once, and `stop` would report `timed-out` without waiting.
 */
export const MAX_STOP_TIMEOUT_MS = MAX_VISIBILITY_TIMEOUT_SECONDS * 1000;
/** What a poll's visibility timeout may be, and why no less. */
export const VISIBILITY_TIMEOUT_ALLOWED = `a whole number of seconds from ${MIN_VISIBILITY_TIMEOUT_SECONDS} to ${MAX_VISIBILITY_TIMEOUT_SECONDS} (a batch's claims lapse up to 2 s before its visibility timeout ends, so 2 s or less leaves them no time)`;

/** The options `pollOnce` and `createPoller` share, checked under `where`. */
function checkPollFields(options: Record<string, unknown>, where: string): void {
  const sqsFault = sendClientFault(options.sqs);
  if (sqsFault !== undefined) throw new ConsumerOptionsError(`${where}.sqs`, `got ${sqsFault}; allowed: an SQSClient`);
  // Else a URL SQS cannot take fails only at the first call, as the SDK's error (no credentials, say).
  const queueUrlFault = sqsQueueUrlFault(options.queueUrl);
  if (queueUrlFault !== undefined) {
    throw new ConsumerOptionsError(
      `${where}.queueUrl`,
      `got ${show(options.queueUrl)}, which ${queueUrlFault}; allowed: ${SQS_QUEUE_URL_ALLOWED}`,
    );
  }
  const consumerFault = methodsFault(options.consumer, ['process']);
  if (consumerFault !== undefined) {
    throw new ConsumerOptionsError(`${where}.consumer`, `got ${consumerFault}; allowed: a consumer from createConsumer`);
  }
  wholeNumberIn(options.maxMessages, `${where}.maxMessages`, 1, 10);
  wholeNumberIn(
    options.visibilityTimeoutSeconds,
    `${where}.visibilityTimeoutSeconds`,
    MIN_VISIBILITY_TIMEOUT_SECONDS,
    MAX_VISIBILITY_TIMEOUT_SECONDS,
    VISIBILITY_TIMEOUT_ALLOWED,
  );
  wholeNumberIn(options.retryDelaySeconds, `${where}.retryDelaySeconds`, 0, MAX_VISIBILITY_TIMEOUT_SECONDS);
}

/** Checks `pollOnce`'s options, before anything is received. */
export function validatePollOptions(options: unknown): void {
  if (!isRecord(options))
    throw new ConsumerOptionsError('pollOnce', `got ${show(options)}; allowed: an object { sqs, queueUrl, consumer, … }`);
  rejectUnknown(options, POLL_KEYS, 'pollOnce');
  checkPollFields(options, 'pollOnce');
  wholeNumberIn(options.waitTimeSeconds, 'pollOnce.waitTimeSeconds', 0, MAX_WAIT_TIME_SECONDS);
}

/** Checks `createPoller`'s options, before anything is received. */
export function validatePollerOptions(options: unknown): void {
  const where = 'createPoller';
  if (!isRecord(options)) throw new ConsumerOptionsError(where, `got ${show(options)}; allowed: an object { sqs, queueUrl, consumer, … }`);
  rejectUnknown(options, [...POLL_KEYS, ...POLLER_KEYS], where);
  checkPollFields(options, where);
  // Short polls in a loop would call SQS without pause while the queue is empty.
  wholeNumberIn(options.waitTimeSeconds, `${where}.waitTimeSeconds`, 1, MAX_WAIT_TIME_SECONDS);
  positiveInteger(options.concurrency, `${where}.concurrency`);
  for (const callback of ['onBatch', 'onError']) {
    if (options[callback] !== undefined && typeof options[callback] !== 'function') {
      throw new ConsumerOptionsError(`${where}.${callback}`, `got ${show(options[callback])}; allowed: a function`);
    }
  }
  const { backoff } = options;
  if (backoff === undefined) return;
  if (!isRecord(backoff))
    throw new ConsumerOptionsError(`${where}.backoff`, `got ${show(backoff)}; allowed: an object { baseDelayMs?, maxDelayMs? }`);
  rejectUnknown(backoff, BACKOFF_KEYS, `${where}.backoff`);
  // The delay bound of every retry in the package; past 2^31 - 1 ms a timer fires at once, and the loop would not pause.
  for (const key of BACKOFF_KEYS) {
    wholeNumberIn(
      backoff[key],
      `${where}.backoff.${key}`,
      1,
      MAX_BACKOFF_DELAY_MS,
      `a whole number of ms from 1 to ${MAX_BACKOFF_DELAY_MS}`,
    );
  }
  const base = backoff.baseDelayMs ?? DEFAULT_POLLER_BACKOFF.baseDelayMs;
  const max = backoff.maxDelayMs ?? DEFAULT_POLLER_BACKOFF.maxDelayMs;
  if ((max as number) < (base as number)) {
    throw new ConsumerOptionsError(
      `${where}.backoff.maxDelayMs`,
      `got ${max}, below baseDelayMs (${base}); allowed: a whole number of ms ≥ baseDelayMs`,
    );
  }
}

/** Checks `stop`'s options: how long it waits for the batches in flight. */
export function validateStopOptions(options: unknown): void {
  if (options === undefined) return;
  if (!isRecord(options)) throw new ConsumerOptionsError('stop', `got ${show(options)}; allowed: an object { timeoutMs? }`);
  rejectUnknown(options, ['timeoutMs'], 'stop');
  wholeNumberIn(
    options.timeoutMs,
    'stop.timeoutMs',
    1,
    MAX_STOP_TIMEOUT_MS,
    `a whole number of ms from 1 to ${MAX_STOP_TIMEOUT_MS} (12 hours, SQS's longest visibility timeout)`,
  );
}
