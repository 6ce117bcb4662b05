import type { Duration } from 'aws-cdk-lib';

/**
 * The shortest visibility timeout, in seconds, of a queue a Lambda function reads through an SQS
 * event source (AWS's advice): six times the function's timeout, plus the batching window, so a
 * message of a slow batch is not received again while that batch still runs.
 *
 * @example
 * ```ts
 * new Queue(this, 'Queue', { visibilityTimeout: Duration.seconds(minVisibilityTimeoutSeconds(timeout, window)) });
 * ```
 */
export function minVisibilityTimeoutSeconds(functionTimeout: Duration, batchingWindow: Duration): number {
  return 6 * functionTimeout.toSeconds() + batchingWindow.toSeconds();
}
