/**
 * A subscriber's handler as Lambda invokes it: with the whole `Context` and a callback, so a
 * service's consumer typed as aws-lambda's `SQSHandler` runs on the test stack as it is.
 */

import type { Context, SQSBatchResponse, SQSHandler } from 'aws-lambda';
import type { SqsHandler, SqsInvocationContext } from '../event-source/sqs-event-source.js';
import type { OutboxTestSqsHandler } from './test-stack-types.js';

type Answer = SQSBatchResponse | undefined;
/** Lambda's callback for an SQS handler: an error, or the batch's answer. */
type SqsCallback = Parameters<SQSHandler>[2];
type CallbackResult = Parameters<SqsCallback>[1];

/**
 * Lambda's context for one invocation: the function's name, request id and time left as the local
 * event source gives them, and the fields Lambda sets beside them, the function's ARN in the
 * queue's partition, Region and account. `done`, `fail` and `succeed` answer through `callback`.
 */
export function lambdaContext(local: SqsInvocationContext, queueArn: string, callback: SqsCallback): Context {
  const [, partition, , region, account] = queueArn.split(':');
  const { functionName, awsRequestId } = local;
  const day = new Date().toISOString().slice(0, 10).replaceAll('-', '/');
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:${partition}:lambda:${region}:${account}:function:${functionName}`,
    memoryLimitInMB: '128',
    awsRequestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `${day}/[$LATEST]${awsRequestId.replaceAll('-', '')}`,
    getRemainingTimeInMillis: () => local.getRemainingTimeInMillis(),
    done: (error, result) => callback(error, result as CallbackResult),
    fail: (error) => callback(error),
    succeed: (result: unknown) => callback(null, result as CallbackResult),
  };
}

const isPromiseLike = (value: unknown): value is PromiseLike<CallbackResult> =>
  typeof (value as { then?: unknown } | null | undefined)?.then === 'function';

/**
 * The handler as the local event source takes it. Its answer is its promise's, or what it passes
 * to the callback, whichever comes first; one that returns something else answers that, as it did,
 * and one that returns nothing and takes no callback (fewer than three parameters) has answered
 * nothing: its batch is acknowledged.
 */
export const asSqsHandler =
  (handler: OutboxTestSqsHandler, queueArn: string): SqsHandler =>
  (event, local) =>
    new Promise<Answer>((resolve, reject) => {
      const callback: SqsCallback = (error, result) =>
        error === null || error === undefined ? resolve(result ?? undefined) : reject(error);
      const answer: unknown = handler(event, lambdaContext(local, queueArn, callback), callback);
      if (isPromiseLike(answer)) answer.then((result) => resolve(result ?? undefined), reject);
      else if (answer !== undefined || handler.length < 3) resolve(answer as Answer);
    });
