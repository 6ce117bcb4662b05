import { randomUUID } from 'node:crypto';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { failedIndex } from './batch-failures.js';
import type { StreamHandler, StreamInvocationContext } from './types.js';
import { LOCAL_RELAY_FUNCTION_NAME } from './types.js';

/** What an invocation came to: its answer, or a timeout (`settled` ends once the abandoned call does). */
export type InvocationResult =
  | { readonly timedOut: false; readonly response: DynamoDBBatchResponse | undefined }
  | { readonly timedOut: true; readonly settled: Promise<void> };

/**
 * Invokes the handler with a batch as Lambda does, its context counting down from `timeoutMs`:
 * resolves to the handler's response, or to a timeout when the handler has not answered by
 * then; rejects when the handler throws in time. Lambda ends a timed-out invocation; here the
 * call goes on, and `settled` says when it has ended, so a retry need not run alongside it.
 *
 * @example
 * ```ts
 * const result = await invokeWithTimeout(handler, batch, 30_000);
 * if (result.timedOut) console.error('Task timed out after 30.00 seconds');
 * ```
 */
export async function invokeWithTimeout(handler: StreamHandler, batch: DynamoDBRecord[], timeoutMs: number): Promise<InvocationResult> {
  const deadline = Date.now() + timeoutMs;
  const context: StreamInvocationContext = {
    functionName: LOCAL_RELAY_FUNCTION_NAME,
    awsRequestId: randomUUID(),
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  const invocation = Promise.resolve().then(() => handler({ Records: batch }, context));
  // Abandoned when it outlives the timeout: whatever it settles to then is ignored.
  const settled = invocation.then(
    () => {},
    () => {},
  );
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<InvocationResult>((resolve) => {
    timer = setTimeout(() => resolve({ timedOut: true, settled }), timeoutMs);
  });
  try {
    return await Promise.race([
      invocation.then((response): InvocationResult => ({ timedOut: false, response: response ?? undefined })),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Waits, at most one more timeout, for a timed-out invocation to end before its batch is retried
 * or bisected: Lambda ends the invocation at its timeout, so on AWS no retry runs alongside it.
 * One that runs on past that is reported (as `what`), and the retry goes ahead.
 */
export async function outlive(
  settled: Promise<void>,
  timeoutMs: number,
  runner: { sleep(ms: number): Promise<void>; stopped(): boolean; report(error: unknown): void },
  what: string,
): Promise<void> {
  let ended = false;
  await Promise.race([settled.then(() => (ended = true)), runner.sleep(timeoutMs)]);
  if (ended || runner.stopped()) return;
  runner.report(
    new Error(
      `${what} is still running ${((2 * timeoutMs) / 1000).toFixed(2)} seconds after it began (Lambda would have ended it); its retry runs alongside it`,
    ),
  );
}

/** Where an invocation left its batch: its first failed record's index (`undefined` when all succeeded), and whether that was a function error. */
export interface BatchOutcome {
  readonly failedAt: number | undefined;
  /** The handler threw or timed out: the whole batch failed, and may be bisected. */
  readonly functionError: boolean;
}

/**
 * Invokes the handler with a batch as the mapping does ({@link invokeWithTimeout}) and says
 * where the batch failed: at the first record its `batchItemFailures` name, or at its start when
 * the handler threw or timed out. A timeout is reported as Lambda logs it, and the abandoned call
 * outlived ({@link outlive}) before the batch is tried again.
 *
 * @example
 * ```ts
 * const { failedAt, functionError } = await invokeBatch(handler, batch, 30_000, runner, shardId);
 * ```
 */
export async function invokeBatch(
  handler: StreamHandler,
  batch: DynamoDBRecord[],
  timeoutMs: number,
  runner: { sleep(ms: number): Promise<void>; stopped(): boolean; report(error: unknown): void },
  shardId: string,
): Promise<BatchOutcome> {
  let result: InvocationResult;
  try {
    result = await invokeWithTimeout(handler, batch, timeoutMs);
  } catch {
    return { failedAt: 0, functionError: true };
  }
  if (!result.timedOut) return { failedAt: failedIndex(batch, result.response), functionError: false };
  runner.report(
    new Error(
      `Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds: the invocation with ${batch.length} records of ${shardId} is a function error`,
    ),
  );
  await outlive(result.settled, timeoutMs, runner, `the timed-out invocation with ${batch.length} records of ${shardId}`);
  return { failedAt: 0, functionError: true };
}
