import { randomUUID } from 'node:crypto';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { LOCAL_RELAY_FUNCTION_NAME } from './resources.js';
import type { StreamHandler, StreamInvocationContext } from './stream-runner.js';

/** What an invocation that outlived the function's timeout resolves to. */
export const TIMED_OUT = Symbol('timed out');

/**
 * Invokes the handler with a batch as Lambda does, its context counting down from `timeoutMs`:
 * resolves to the handler's response, or to `TIMED_OUT` when the handler has not answered by
 * then; rejects when the handler throws in time.
 *
 * @example
 * ```ts
 * const response = await invokeWithTimeout(handler, batch, 30_000);
 * if (response === TIMED_OUT) console.error('Task timed out after 30.00 seconds');
 * ```
 */
export async function invokeWithTimeout(
  handler: StreamHandler,
  batch: DynamoDBRecord[],
  timeoutMs: number,
): Promise<DynamoDBBatchResponse | undefined | typeof TIMED_OUT> {
  const deadline = Date.now() + timeoutMs;
  const context: StreamInvocationContext = {
    functionName: LOCAL_RELAY_FUNCTION_NAME,
    awsRequestId: randomUUID(),
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  const invocation = Promise.resolve().then(() => handler({ Records: batch }, context));
  // Abandoned when it outlives the timeout: whatever it settles to then is ignored.
  invocation.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs);
  });
  try {
    return await Promise.race([invocation, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
