import { Duration, Token } from 'aws-cdk-lib';
import { checkedConfig, configRefusal } from '../../shared/config.js';
import { MAX_VISIBILITY_TIMEOUT_SECONDS } from '../../shared/consumer/poll-options.js';
import { showValue } from '../../shared/show-value.js';
import { subscriberFilterProblem } from '../../shared/subscriber-filter.js';
import { DEFAULT_QUEUE_RETENTION, type OutboxSubscriberProps } from '../subscriber-props.js';
import { checkInteger, checkSeconds, OutboxPropsError } from './props-error.js';
import { SQS_MAX_RETENTION_SECONDS } from './retention.js';
import { minVisibilityTimeoutSeconds } from './visibility-timeout.js';

/** SNS allows at most 150 combinations of values in a filter policy: the product of each attribute's value count. */
const MAX_FILTER_COMBINATIONS = 150;

/** Props that would silently do nothing are rejected, so a misplaced setting fails loudly. */
function rejectUnused(path: string, props: OutboxSubscriberProps): void {
  const unused = (names: readonly (keyof OutboxSubscriberProps)[], reason: string) => {
    const given = names.filter((name) => props[name] !== undefined);
    if (given.length > 0) throw new OutboxPropsError(path, given.join(', '), `${given.length > 1 ? 'are' : 'is'} set but ${reason}`);
  };
  if (props.consumerEntry !== undefined && props.consumer !== undefined) {
    throw new OutboxPropsError(path, 'consumer', 'is set together with consumerEntry; allowed: one of them');
  }
  if (props.consumer !== undefined && props.reservedConcurrency !== undefined) {
    throw new OutboxPropsError(
      path,
      'reservedConcurrency',
      `is set with the existing consumer ${props.consumer.node.path}, whose reservation is its own (it may consume other queues too); allowed: set reservedConcurrentExecutions on that function, and maxConcurrency here to at most that, or leave reservedConcurrency out`,
    );
  }
  if (props.consumerEntry === undefined) {
    unused(
      ['consumerMemorySize', 'consumerEnvironment', 'reservedConcurrency', 'logRetention'],
      'configure a consumer Lambda to create, and no consumerEntry is given; allowed: set consumerEntry, or leave them out',
    );
  }
  if (props.consumerEntry === undefined && props.consumer === undefined) {
    unused(
      ['consumerTimeout', 'batchSize', 'maxBatchingWindow', 'maxConcurrency'],
      'configure a consumer, and neither consumerEntry nor consumer is given; allowed: set one of them, or leave them out',
    );
  }
  if (props.queue !== undefined) {
    unused(
      ['retentionPeriod', 'visibilityTimeout', 'maxReceiveCount'],
      'configure a new queue, and an existing queue is given; allowed: set them on that queue, or leave queue out',
    );
  }
}

/**
 * A reservation of at least 2, and an event source that never invokes more consumers than are
 * reserved: Lambda would throttle the surplus, and each throttled batch goes back to the queue
 * with a receive counted towards the DLQ.
 */
function checkConcurrency(path: string, props: OutboxSubscriberProps): void {
  const reserved = props.reservedConcurrency;
  if (reserved === undefined || Token.isUnresolved(reserved)) return;
  if (!Number.isInteger(reserved) || reserved < 2) {
    throw new OutboxPropsError(
      path,
      'reservedConcurrency',
      `is ${showValue(reserved)}; allowed: a whole number from 2 (the event source invokes up to maxConcurrency consumers, 2 at least, and would be throttled past the reservation), within what the account can reserve (its concurrency limit less 100, checked by Lambda at deploy), or leave it out`,
    );
  }
  const max = props.maxConcurrency;
  if (max !== undefined && !Token.isUnresolved(max) && max > reserved) {
    throw new OutboxPropsError(
      path,
      'maxConcurrency',
      `is ${max} with a reservedConcurrency of ${reserved}; allowed: at most ${reserved}, or leave it out (it then follows reservedConcurrency): the event source does not count the reservation, and Lambda would throttle the batches beyond it, each going back to the queue with a receive counted towards the DLQ`,
    );
  }
}

/** An existing consumer's timeout must be known, and `consumerTimeout` must not contradict it: it sizes the queue. */
function checkConsumerTimeout(path: string, props: OutboxSubscriberProps, own: Duration | 'unknown' | undefined): void {
  if (props.consumer === undefined) return;
  const given = props.consumerTimeout;
  if (own === 'unknown' && given === undefined) {
    throw new OutboxPropsError(
      path,
      'consumerTimeout',
      `is not set, and the timeout of the consumer ${props.consumer.node.path} cannot be read (a function imported into the app); allowed: that function's timeout (1–900 s), from which the queue's visibility timeout is sized`,
    );
  }
  if (own === 'unknown' || own === undefined || given === undefined || own.isUnresolved() || given.isUnresolved()) return;
  if (own.toSeconds() !== given.toSeconds()) {
    throw new OutboxPropsError(
      path,
      'consumerTimeout',
      `is ${given.toSeconds()} s, but the consumer ${props.consumer.node.path} times out after ${own.toSeconds()} s; allowed: leave it out (it is read from the function), or ${own.toSeconds()} s`,
    );
  }
}

/**
 * A new queue's visibility timeout is sized at synth from the consumer's timeout and the batching
 * window (6 × the one + the other), which a token (a value known only at deploy) does not allow:
 * such a value is taken when the queue's visibility timeout is given, or the queue is an existing one.
 */
function checkSizableVisibility(path: string, props: OutboxSubscriberProps, consumerTimeout: Duration, window: Duration): void {
  if (props.queue !== undefined || props.visibilityTimeout !== undefined) return;
  const prop = consumerTimeout.isUnresolved() ? 'consumerTimeout' : window.isUnresolved() ? 'maxBatchingWindow' : undefined;
  if (prop === undefined) return;
  const what = prop === 'consumerTimeout' && props.consumerTimeout === undefined ? `(the timeout of ${props.consumer!.node.path}) ` : '';
  throw new OutboxPropsError(
    path,
    prop,
    `${what}is a token, known only at deploy, and the new queue's visibility timeout is sized from it at synth (6 × the consumer timeout + the batching window); allowed: a duration known at synth, or set visibilityTimeout too (at least 6 × the consumer timeout + the batching window as they deploy)`,
  );
}

/**
 * Refuses, when the subscriber is given the config, a filter that lets nothing of its topic
 * through (`subscriberFilterProblem`, as `Outbox.addSubscriber` words it), and a config it cannot
 * check against: one `defineConfig` would refuse, a topic whose config name is not known
 * (`topicName`, its name in its `OutboxTopics`), or a config without that topic.
 *
 * @example
 * ```ts
 * checkSubscriberConfig(path, props, 'orders.fifo'); // eventTypes: ['order.plcaed'] throws
 * ```
 */
export function checkSubscriberConfig(path: string, props: OutboxSubscriberProps, topicName: string | undefined): void {
  if (props.config === undefined) return;
  const config = checkedConfig(props.config, (cause) => new OutboxPropsError(path, 'config', configRefusal(cause), { cause }));
  if (topicName === undefined) {
    throw new OutboxPropsError(
      path,
      'config',
      `is given with the topic ${props.topic.node.path}, which is no topic of an OutboxTopics in this app (an imported one, say), so which of the config's topics it is cannot be told; allowed: a topic from outbox.topics.topic(name) or an OutboxTopics' topic(name), or leave config out`,
    );
  }
  if (!config.topics.some((topic) => topic.name === topicName)) {
    throw new OutboxPropsError(
      path,
      'config',
      `names no topic ${JSON.stringify(topicName)}, the config topic ${props.topic.node.path} was made for; allowed: the config the topics were made from (its topics: ${config.topics.map((t) => JSON.stringify(t.name)).join(', ')}), or leave config out`,
    );
  }
  const problem = subscriberFilterProblem(config, topicName, props);
  if (problem !== undefined) throw new OutboxPropsError(path, problem.entry, problem.message);
}

/**
 * Checks an {@link OutboxSubscriber}'s props against AWS's limits and against each other, throwing
 * an `OutboxPropsError` that names the prop, the value given and what is allowed; unresolved
 * tokens are left to CloudFormation.
 *
 * @example
 * ```ts
 * validateSubscriberProps(path, props, topic.fifo, Duration.seconds(30), Duration.seconds(0));
 * ```
 */
export function validateSubscriberProps(
  path: string,
  props: OutboxSubscriberProps,
  fifo: boolean,
  consumerTimeout: Duration,
  window: Duration,
  /** An existing consumer's own timeout, as far as the app knows it. */
  consumerOwnTimeout?: Duration | 'unknown',
): void {
  // SNS delivers a FIFO topic to a standard queue as well (best-effort order, at least once), but a standard topic to no FIFO queue.
  if (props.queue?.fifo === true && !fifo) {
    throw new OutboxPropsError(
      path,
      'queue',
      `is a FIFO queue on the standard topic ${props.topic.node.path}; allowed: a standard queue (SNS delivers a standard topic only to standard queues)`,
    );
  }
  // Lambda's limits are the queue's: a standard queue given for a FIFO topic batches as any standard queue.
  const fifoQueue = props.queue?.fifo ?? fifo;
  for (const [prop, values] of [
    ['eventTypes', props.eventTypes],
    ['aggregateTypes', props.aggregateTypes],
  ] as const) {
    if (values === undefined) continue;
    if (values.length === 0 || values.some((v) => typeof v !== 'string' || v === '')) {
      throw new OutboxPropsError(
        path,
        prop,
        `is ${JSON.stringify(values)}; allowed: a non-empty list of non-empty strings, or leave it out to receive all`,
      );
    }
  }
  const given: [string, number][] = [];
  if (props.eventTypes) given.push(['event types', props.eventTypes.length]);
  if (props.aggregateTypes) given.push(['aggregate types', props.aggregateTypes.length]);
  const combinations = given.reduce((product, [, n]) => product * n, 1);
  if (combinations > MAX_FILTER_COMBINATIONS) {
    throw new OutboxPropsError(
      path,
      'eventTypes/aggregateTypes',
      `make ${given.map(([what, n]) => `${n} ${what}`).join(' × ')} = ${combinations} value combinations; allowed: at most ${MAX_FILTER_COMBINATIONS} (SNS multiplies the number of values of each filter attribute): split the subscriber, or filter on fewer values`,
    );
  }
  checkInteger(path, 'maxReceiveCount', props.maxReceiveCount, 1, 1_000);
  checkSeconds(path, 'retentionPeriod', props.retentionPeriod, 60, SQS_MAX_RETENTION_SECONDS);
  checkSeconds(path, 'visibilityTimeout', props.visibilityTimeout, 0, MAX_VISIBILITY_TIMEOUT_SECONDS);
  checkSeconds(path, 'consumerTimeout', consumerTimeout, 1, 900);
  checkSeconds(path, 'maxBatchingWindow', window, 0, 300);
  checkInteger(path, 'batchSize', props.batchSize, 1, fifoQueue ? 10 : 10_000);
  checkInteger(path, 'maxConcurrency', props.maxConcurrency, 2, 1_000);
  checkConcurrency(path, props);
  if ((props.batchSize ?? 10) > 10 && window.toSeconds() < 1) {
    throw new OutboxPropsError(
      path,
      'batchSize',
      `is ${props.batchSize} without a batching window; allowed: at most 10, or set maxBatchingWindow to at least 1 second`,
    );
  }
  rejectUnused(path, props);
  // A zero window gathers nothing, so it is taken (and the event source given none, as CDK refuses any on a FIFO queue).
  const noWindow = !window.isUnresolved() && window.toSeconds() === 0;
  if (fifoQueue && props.maxBatchingWindow !== undefined && !noWindow) {
    throw new OutboxPropsError(
      path,
      'maxBatchingWindow',
      `is ${props.maxBatchingWindow.isUnresolved() ? 'set' : props.maxBatchingWindow.toHumanString()} on a subscriber of the FIFO topic ${props.topic.node.path}; allowed: no batching window on a FIFO topic (Lambda takes none from a FIFO queue), so leave it out or make it 0`,
    );
  }
  if (props.consumerEntry === undefined && props.consumer === undefined) return;
  checkConsumerTimeout(path, props, consumerOwnTimeout);
  checkSizableVisibility(path, props, consumerTimeout, window);
  if (consumerTimeout.isUnresolved() || window.isUnresolved()) return;
  const minimum = minVisibilityTimeoutSeconds(consumerTimeout, window);
  if (props.visibilityTimeout && !props.visibilityTimeout.isUnresolved() && props.visibilityTimeout.toSeconds() < minimum) {
    throw new OutboxPropsError(
      path,
      'visibilityTimeout',
      `is ${props.visibilityTimeout.toSeconds()} s with a ${consumerTimeout.toSeconds()} s consumer timeout; allowed: at least ${minimum} s (6 × the consumer timeout + the batching window)`,
    );
  }
}

/**
 * The age of a subscriber queue's oldest message that raises its alarm: `given`, else 1 hour or
 * half the retention period when that is shorter; refused unless below the retention period of a
 * new queue (an existing queue's is not known).
 *
 * @example
 * ```ts
 * alarms.addQueueAge(`${id}Queue`, subscriber.queue, queueAgeThreshold(path, props, props.queueAgeThreshold));
 * ```
 */
export function queueAgeThreshold(
  path: string,
  props: Pick<OutboxSubscriberProps, 'queue' | 'retentionPeriod'>,
  given?: Duration,
): Duration {
  checkSeconds(path, 'queueAgeThreshold', given, 60, SQS_MAX_RETENTION_SECONDS);
  const retention = props.queue === undefined ? (props.retentionPeriod ?? DEFAULT_QUEUE_RETENTION) : undefined;
  const known = retention !== undefined && !retention.isUnresolved() ? retention.toSeconds() : undefined;
  if (given === undefined) return Duration.seconds(known === undefined ? 3_600 : Math.max(60, Math.min(3_600, Math.floor(known / 2))));
  if (known !== undefined && !given.isUnresolved() && given.toSeconds() >= known) {
    throw new OutboxPropsError(
      path,
      'queueAgeThreshold',
      `is ${given.toHumanString()} with a retention period of ${retention!.toHumanString()}; allowed: less than the retention period, after which SQS deletes messages unread`,
    );
  }
  return given;
}
