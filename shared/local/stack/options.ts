import { DYNAMODB_TABLE_NAME_ONLY_PATTERN } from '../../aws/dynamodb-table-name.js';
import type { OutboxConfig } from '../../config.js';
import { isRecord } from '../../config-fields.js';
import { MAX_VISIBILITY_TIMEOUT_SECONDS, MIN_VISIBILITY_TIMEOUT_SECONDS } from '../../consumer/poll-options.js';
import { showValue } from '../../show-value.js';
import { subscriberFilterProblem } from '../../subscriber-filter.js';
import { MAX_PORT } from '../../tcp-port.js';
import { objectHasUnknownKeys, unknownKeys } from '../../unknown-keys.js';
import { LocalStackError } from '../errors.js';
import { PORT_ALLOWED } from './ports.js';
import { localStackConfig } from './test-stack-checks.js';
import type { OutboxTestSubscriber } from './test-stack-types.js';

/** How loud the local relay and archiver are: warnings and errors (a record that failed, a dead letter), so a run's output stays readable. */
export const LOCAL_LOG_LEVEL = 'WARN';

/** The relay DLQ's name, which no subscriber queue may take. */
export const RELAY_DLQ_NAME = 'outbox-relay-dlq';
/** The archive queue and its DLQ, when the config has an archive. */
export const ARCHIVE_QUEUE_NAME = 'outbox-archive';
export const ARCHIVE_DLQ_NAME = 'outbox-archive-dlq';
/** What SNS could not deliver to the archive queue from a FIFO topic: SNS takes only a FIFO DLQ there. */
export const ARCHIVE_FIFO_DLQ_NAME = 'outbox-archive-dlq.fifo';

/**
 * The stack's queues' visibility timeout, at least the consumer poller's shortest: a handler's
 * context counts down to 2 s before its batch comes back, so at 2 s or less every consumer and
 * the archiver start with no time left (the archiver then aborts each write), and at 0
 * concurrent invocations get the same messages.
 */
export const VISIBILITY_TIMEOUT_ALLOWED = `a whole number of seconds from ${MIN_VISIBILITY_TIMEOUT_SECONDS} to ${MAX_VISIBILITY_TIMEOUT_SECONDS} (a handler's context ends 2 s before its batch comes back, so 2 s or less leaves the consumers and the archiver no time)`;

const SUBSCRIBER_NAME = /^[A-Za-z0-9_-]{1,70}$/;

/** An `INVALID_OPTION` naming `what`, the value given as `shown` says it, and what is allowed. */
const refuse = (what: string, shown: string, allowed: string): LocalStackError =>
  new LocalStackError('INVALID_OPTION', `${what} is ${shown}; allowed: ${allowed}`);
/** An `INVALID_OPTION` naming `what`, the value given (`showValue`), and what is allowed. */
export const invalidOption = (what: string, value: unknown, allowed: string): LocalStackError => refuse(what, showValue(value), allowed);

/** Fails with `INVALID_OPTION` unless `value` is `undefined` or a whole number from `min` to `max`. */
export function checkInteger(what: string, value: number | undefined, min: number, max: number, allowed?: string): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < min || value > max)
    throw invalidOption(what, value, allowed ?? `a whole number from ${min} to ${max}`);
}

/** Fails with `INVALID_OPTION` unless `value` is `undefined` or a port: 0 (a free one) to 65535. */
export const checkPort = (what: string, value: number | undefined): void => checkInteger(what, value, 0, MAX_PORT, PORT_ALLOWED);

/**
 * Fails with `INVALID_OPTION` when two parts are given the same port (0, a free one, aside): the
 * second would fail only once the first had started (Java's seconds), as "already in use", held
 * by the stack itself.
 */
export function checkDistinctPorts(ports: readonly (readonly [string, number | undefined])[]): void {
  for (const [i, [first, port]] of ports.entries()) {
    const [second] = ports.slice(i + 1).find(([, other]) => port !== undefined && port !== 0 && other === port) ?? [];
    if (second !== undefined)
      throw new LocalStackError(
        'INVALID_OPTION',
        `${first} and ${second} are both ${port}; allowed: a port of its own for each (0, or leaving either out, picks a free one)`,
      );
  }
}

/** Fails with `INVALID_OPTION` unless `value` is `undefined` or a visibility timeout the stack's handlers have time in. */
export const checkVisibilityTimeout = (value: number | undefined): void =>
  checkInteger(
    'visibilityTimeoutSeconds',
    value,
    MIN_VISIBILITY_TIMEOUT_SECONDS,
    MAX_VISIBILITY_TIMEOUT_SECONDS,
    VISIBILITY_TIMEOUT_ALLOWED,
  );

/**
 * Fails with `INVALID_OPTION` unless `value` is `undefined` or a DynamoDB table name, other than
 * `leaseTable` (the low-latency processor's, when it runs): the processor would take the outbox
 * table for its lease table, which DynamoDB Local already has.
 */
export function checkTableName(value: string | undefined, leaseTable?: string): void {
  if (value !== undefined && (typeof value !== 'string' || !DYNAMODB_TABLE_NAME_ONLY_PATTERN.test(value)))
    throw invalidOption('tableName', value, 'a DynamoDB table name of 3–255 letters, digits, "_", "-" or "."');
  if (value !== undefined && value === leaseTable)
    throw invalidOption(
      'tableName',
      value,
      `a DynamoDB table name other than ${leaseTable}, the low-latency processor's lease table (the config names low-latency or handed-over aggregate types)`,
    );
}

/**
 * Fails with `INVALID_OPTION` unless `value` is an object (or, when `optional`, `undefined`)
 * whose keys are all `allowed`: a misspelt option (`subscriber`, `eventType`) would otherwise be
 * ignored, and the stack run without what it asked for.
 */
export function checkOptionKeys(what: string, value: unknown, allowed: readonly string[], optional = false): void {
  if (optional && value === undefined) return;
  if (!isRecord(value)) throw invalidOption(what, value, `an object with ${allowed.join(', ')}`);
  const unknown = unknownKeys(value, allowed);
  if (unknown.length > 0) throw new LocalStackError('INVALID_OPTION', objectHasUnknownKeys(what, unknown, allowed));
}

/** The keys a subscriber may have (`OutboxTestSubscriber`). */
const SUBSCRIBER_KEYS = ['name', 'topic', 'eventTypes', 'aggregateTypes', 'maxReceiveCount', 'handler', 'concurrency'];

/**
 * The config as `defineConfig` validates it (one it made passes unchanged), which the stack then
 * runs on; fails with `INVALID_OPTION` for a config it refuses, in the words every part uses
 * (`configRefusal`: what in it is wrong, not the whole object), unless `subscribers` is
 * `undefined` or a list, and unless `onError` is `undefined` or a function. Each would otherwise
 * fail later as a bare TypeError (a config given without the defaults `defineConfig` fills in),
 * or (`onError`) only once a part in the background reports.
 */
export function checkOptionShapes(config: unknown, subscribers: unknown, onError: unknown): OutboxConfig {
  const checked = localStackConfig(config);
  if (subscribers !== undefined && !Array.isArray(subscribers))
    throw invalidOption('subscribers', subscribers, 'a list of subscribers, each { name, topic, … }');
  if (onError !== undefined && typeof onError !== 'function') throw invalidOption('onError', onError, 'a function (source, error) => void');
  return checked;
}

function checkNames(what: string, values: readonly string[] | undefined, means: string): void {
  if (values === undefined) return;
  if (!Array.isArray(values) || values.length === 0) throw invalidOption(what, values, `a non-empty list of ${means}`);
  values.forEach((value, j) => {
    if (typeof value !== 'string' || value === '') throw invalidOption(`${what}[${j}]`, value, `a non-empty string: ${means}`);
  });
}

/** The queue names a subscriber takes on the emulator: its queue and its DLQ. */
function queueNames(config: OutboxConfig, subscriber: OutboxTestSubscriber): string[] {
  const suffix = config.topics.find((t) => t.name === subscriber.topic)?.fifo === true ? '.fifo' : '';
  return [`${subscriber.name}${suffix}`, `${subscriber.name}-dlq${suffix}`];
}

/**
 * Checks the subscribers against the config before anything starts, so a typo fails in
 * milliseconds with `INVALID_SUBSCRIPTION` (a topic, name or filter that cannot be; a filter that
 * lets nothing through is refused as `Outbox.addSubscriber` refuses it, in its words) or
 * `INVALID_OPTION` (a bad number or handler), naming the subscriber's field and the value.
 */
export function checkSubscriptions(config: OutboxConfig, subscribers: readonly OutboxTestSubscriber[]): void {
  const topics = config.topics.map((t) => t.name);
  const taken = new Map<string, string>([[RELAY_DLQ_NAME, 'the relay DLQ']]);
  if (config.archive !== undefined) {
    taken.set(ARCHIVE_QUEUE_NAME, 'the archive queue');
    taken.set(ARCHIVE_DLQ_NAME, "the archive queue's DLQ");
    if (config.topics.some((t) => t.fifo)) taken.set(ARCHIVE_FIFO_DLQ_NAME, "the archive's DLQ for FIFO topics");
  }
  const names = new Set<string>();
  subscribers.forEach((subscriber, i) => {
    const at = `subscribers[${i}]`;
    checkOptionKeys(at, subscriber, SUBSCRIBER_KEYS);
    if (!topics.includes(subscriber.topic)) {
      throw new LocalStackError(
        'INVALID_SUBSCRIPTION',
        `${at}.topic is ${showValue(subscriber.topic)}; allowed: a topic of the config (${topics.join(', ')})`,
      );
    }
    if (typeof subscriber.name !== 'string' || !SUBSCRIBER_NAME.test(subscriber.name)) {
      throw new LocalStackError(
        'INVALID_SUBSCRIPTION',
        `${at}.name is ${showValue(subscriber.name)}; allowed: a name of 1–70 letters, digits, "-" or "_"`,
      );
    }
    if (names.has(subscriber.name)) {
      throw new LocalStackError(
        'INVALID_SUBSCRIPTION',
        `${at}.name is ${showValue(subscriber.name)}, which an earlier subscriber has; allowed: a name of its own (receive() and the counters go by it)`,
      );
    }
    names.add(subscriber.name);
    for (const queue of queueNames(config, subscriber)) {
      const owner = taken.get(queue);
      if (owner !== undefined) {
        throw new LocalStackError(
          'INVALID_SUBSCRIPTION',
          `${at}.name is ${showValue(subscriber.name)}, whose queue ${queue} is already ${owner}'s; allowed: a name whose queue and DLQ (<name>-dlq) no other queue has`,
        );
      }
      taken.set(queue, `${at} (${subscriber.name})`);
    }
    try {
      checkNames(`${at}.eventTypes`, subscriber.eventTypes, 'CloudEvents types');
      checkNames(`${at}.aggregateTypes`, subscriber.aggregateTypes, `aggregate types the config routes to ${subscriber.topic}`);
    } catch (error) {
      throw new LocalStackError('INVALID_SUBSCRIPTION', (error as Error).message);
    }
    // A filter that lets nothing through, as Outbox.addSubscriber refuses it at synth, in its words.
    const problem = subscriberFilterProblem(config, subscriber.topic, subscriber);
    if (problem !== undefined)
      throw new LocalStackError(
        'INVALID_SUBSCRIPTION',
        `${at}.${problem.entry} (subscriber ${showValue(subscriber.name)}) ${problem.message}`,
      );
    checkInteger(`${at}.maxReceiveCount`, subscriber.maxReceiveCount, 1, 1000);
    checkInteger(`${at}.concurrency`, subscriber.concurrency, 1, 10);
    if (subscriber.handler !== undefined && typeof subscriber.handler !== 'function')
      throw invalidOption(
        `${at}.handler`,
        subscriber.handler,
        'a function that builds an SQS Lambda handler (deps) => handler, or leave it out',
      );
  });
}
