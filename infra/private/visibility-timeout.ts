import { type Duration, Token } from 'aws-cdk-lib';
import { CfnQueue, type IQueue } from 'aws-cdk-lib/aws-sqs';
import { OutboxPropsError } from './props-error.js';

/** SQS's visibility timeout of a queue created without one. */
const SQS_DEFAULT_VISIBILITY_TIMEOUT_SECONDS = 30;

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

/**
 * The visibility timeout, in seconds, of a queue this app defines (SQS's 30 s when it sets none);
 * `undefined` for an imported queue, or one whose timeout is a token.
 *
 * @example
 * ```ts
 * const seconds = queueVisibilityTimeoutSeconds(props.queue); // 30 for new Queue(this, 'Queue')
 * ```
 */
function queueVisibilityTimeoutSeconds(queue: IQueue): number | undefined {
  const resource = queue.node.defaultChild;
  if (!(resource instanceof CfnQueue)) return undefined;
  const seconds = resource.visibilityTimeout;
  if (seconds === undefined) return SQS_DEFAULT_VISIBILITY_TIMEOUT_SECONDS;
  return Token.isUnresolved(seconds) ? undefined : seconds;
}

/**
 * Checks an existing queue of the app that a consumer reads: one whose visibility timeout is below
 * the consumer's timeout is refused (Lambda refuses that event source mapping at deploy); one
 * below AWS's advice (6 × the timeout + the batching window) is returned with the advised value,
 * for a warning: its settings are the caller's. An imported queue, or a token, is left alone.
 *
 * @example
 * ```ts
 * const short = checkQueueVisibility(this.node.path, props.queue, consumerTimeout, window);
 * if (short) Annotations.of(this).addWarningV2('…', `${short.seconds} s, below ${short.advised} s`);
 * ```
 */
export function checkQueueVisibility(
  path: string,
  queue: IQueue,
  consumerTimeout: Duration,
  window: Duration,
): { readonly seconds: number; readonly advised: number } | undefined {
  const seconds = queueVisibilityTimeoutSeconds(queue);
  if (seconds === undefined || consumerTimeout.isUnresolved() || window.isUnresolved()) return undefined;
  const timeout = consumerTimeout.toSeconds();
  const advised = minVisibilityTimeoutSeconds(consumerTimeout, window);
  if (seconds < timeout) {
    throw new OutboxPropsError(
      path,
      'queue',
      `${queue.node.path} has a visibility timeout of ${seconds} s, less than the ${timeout} s timeout of its consumer, and Lambda refuses such an event source mapping at deploy; allowed: a queue whose visibility timeout is at least ${timeout} s, better ${advised} s: 6 × the consumer timeout + the batching window (AWS's advice)`,
    );
  }
  return seconds < advised ? { seconds, advised } : undefined;
}
