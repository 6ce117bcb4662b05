import type { BatchResult, ConsumerMessage } from './types.js';

/**
 * A consumer's run of a batch whose messages are checked already (as `consumer.process` checks
 * them, and without an attribute's `null` stringValue); `claimsLapseAt` in epoch seconds.
 */
export type CheckedProcess = (messages: readonly ConsumerMessage[], claimsLapseAt: number | undefined) => Promise<BatchResult>;

/** The run behind each `process` function `createConsumer` gave, keyed by that function. */
const runs = new WeakMap<object, CheckedProcess>();

/** Notes `run` as what the consumer's public `process` does once it has checked what it was given; returns `process`. */
export function withCheckedRun<F extends (...args: never[]) => unknown>(process: F, run: CheckedProcess): F {
  runs.set(process, run);
  return process;
}

/**
 * The run behind `process` when it is a `process` function `createConsumer` gave: a poller that
 * made its messages with `fromSqsMessage`, which checks them, hands them to it without a second
 * check. Any other function (a wrapper, a consumer of one's own) has none: it is called as given.
 */
export const checkedRunOf = (process: unknown): CheckedProcess | undefined =>
  typeof process === 'function' ? runs.get(process) : undefined;
