import {
  catalogWithoutSchemas,
  type EventTypeCatalog,
  type EventTypeInput,
  type UndeclaredEventTypes,
  validateEventTypes,
  validateUndeclared,
} from './catalog/event-types.js';
import { ConfigError, EnvironmentError } from './errors.js';
import { validateLagAlarms } from './lag-alarms.js';
import { UNDECLARED_EVENT_TYPE } from './lag-by-event-type.js';
import { DEFAULT_RELAY_TIMEOUT_SECONDS, MAX_FILTER_PATTERN_LENGTH, relayFilterPatterns } from './relay-filter.js';
import { AGGREGATE_TYPE_PATTERN } from './slot.js';

export { AGGREGATE_TYPE_PATTERN };

/** A topic the relay publishes to. FIFO topics keep per-aggregate order end to end. */
export interface TopicConfig {
  /** Logical and local name; a FIFO topic's name ends in `.fifo`. */
  readonly name: string;
  /** @default false */
  readonly fifo?: boolean;
  /**
   * Publish a run of consecutive events of one aggregate as one SNS message, a CloudEvents batch
   * (`application/cloudevents-batch+json`), so a hot aggregate drains many events per SNS round
   * trip with its order still exact. Only events with identical message attributes (same type)
   * share a message, so filter policies decide alike. Consumers must unpack batches (the consumer
   * helper does). See docs/relay.md.
   * @default off: one event per message
   */
  readonly batching?: TopicBatching;
}

/**
 * How many events of one aggregate one SNS message may carry on a batching topic.
 *
 * @example
 * ```ts
 * const batching: TopicBatching = { maxEvents: 10 };
 * defineConfig({ source, topics: [{ name: 'orders.fifo', fifo: true, batching }], routes: { order: 'orders.fifo' } });
 * ```
 */
export interface TopicBatching {
  /** Events per message (2–100), within the message-size limit. */
  readonly maxEvents: number;
}

/** A validated topic: `fifo` filled in, `batching` present only when the topic batches. */
export type TopicSettings = Required<Pick<TopicConfig, 'name' | 'fifo'>> & Pick<TopicConfig, 'batching'>;

/** The range of {@link TopicBatching.maxEvents}. */
export const BATCHING_MAX_EVENTS_RANGE: readonly [number, number] = [2, 100];

/** Tuning of the relay: the event source mapping's settings and the in-process publish loop. */
export interface RelayTuning {
  /** Records per batch handed to the relay (AWS: 1–10,000). @default 100 */
  readonly batchSize: number;
  /** Batching window in seconds (AWS: 0–300). @default 0 — lowest latency */
  readonly maxBatchingWindowSeconds: number;
  /** Concurrent batches per shard (AWS: 1–10); order per aggregate holds at any value. @default 1 */
  readonly parallelizationFactor: number;
  /** Split a failing batch in two to isolate the failing record. @default true */
  readonly bisectBatchOnError: boolean;
  /**
   * Retries of a failing batch before it goes to the on-failure destination (0–10,000), or -1 for
   * no limit: a failing batch is retried until its records expire from the stream (24 hours) or
   * exceed `maxRecordAgeSeconds`. @default 10
   */
  readonly maxRetryAttempts: number;
  /**
   * Records older than this go to the on-failure destination (60–604,800 s), or -1 for no limit:
   * records are retried until they expire from the stream (24 hours). @default 86400
   */
  readonly maxRecordAgeSeconds: number;
  /** Publish requests in flight at once inside one invocation (1–64); 10 sends a default batch of 100 one-event records in one wave. @default 10 */
  readonly publishConcurrency: number;
  /** Attempts per publish before a transient failure is reported (1–10). @default 4 */
  readonly maxPublishAttempts: number;
  /**
   * The relay function's timeout per batch, in seconds (AWS: 1–900): the stack deploys it, and
   * the local runner ends an invocation not answered by then as a function error, as Lambda does.
   * @default 60
   */
  readonly timeoutSeconds: number;
}

/** The validated outbox configuration shared by the CDK stack, the relay and the local stack. */
export interface OutboxConfig {
  /** CloudEvents `source` of every event written through this outbox (a URI reference). */
  readonly source: string;
  readonly topics: readonly TopicSettings[];
  /** Aggregate type → topic name. Every aggregate type written must have a route. */
  readonly routes: Readonly<Record<string, string>>;
  /** Aggregate types published by the low-latency stream processor instead of the Lambda relay. */
  readonly lowLatencyAggregateTypes: readonly string[];
  /** How long a quiet outbox slot is kept before TTL removes it, in seconds. */
  readonly outboxRetentionSeconds: number;
  readonly relay: RelayTuning;
  /** The declared event types, each with its versions ordered oldest first; absent when the config declares none. */
  readonly eventTypes?: EventTypeCatalog;
  /** What the write helper does with an event type `eventTypes` does not declare; set exactly when `eventTypes` is. */
  readonly undeclaredEventTypes?: UndeclaredEventTypes;
  /** Aggregate type → relay lag (commit to published) in seconds that raises its alarm; absent when none is set. */
  readonly lagAlarmSeconds?: Readonly<Record<string, number>>;
  /** The event archive (every published envelope kept in S3, for `replay`); absent when the config has none. */
  readonly archive?: ArchiveConfig;
}

/** The event archive: an archive queue subscribed to every topic, and an archiver writing its envelopes to S3. */
export interface ArchiveConfig {
  /** Days an archive object is kept before the bucket's lifecycle rule deletes it, 1 to {@link MAX_ARCHIVE_RETENTION_DAYS}. */
  readonly retentionDays: number;
}

/** Ten years, as for the outbox's retention. */
export const MAX_ARCHIVE_RETENTION_DAYS = 3650;

/** What a user writes: everything but `source`, `topics` and `routes` has a default. */
export interface OutboxConfigInput {
  readonly source: string;
  readonly topics: readonly TopicConfig[];
  readonly routes: Readonly<Record<string, string>>;
  /** @default [] */
  readonly lowLatencyAggregateTypes?: readonly string[];
  /** 1 s to 10 years. @default 604800 (7 days) */
  readonly outboxRetentionSeconds?: number;
  readonly relay?: Partial<RelayTuning>;
  /**
   * The event catalog: event type → its declaration `{ version, schema?, aggregateType?, description? }`,
   * or a list of its versions. The write helper checks each event's `data` against the schema of
   * the type's newest version and the envelope names that version in `dataschema`; the consumer
   * helper and `dynamodb-outbox catalog` read the same declarations. See docs/catalog.md.
   * @default no catalog: events of any type, data unchecked, no `dataschema`
   */
  readonly eventTypes?: Readonly<Record<string, EventTypeInput>>;
  /** With `eventTypes`: `'reject'` refuses to write an event type it does not declare, `'allow'` writes it unchecked. @default 'reject' */
  readonly undeclaredEventTypes?: UndeclaredEventTypes;
  /**
   * An alarm per aggregate type the Lambda relay publishes: aggregate type → the lag from commit
   * to published, in whole seconds (1–86,400), that raises it when the type's
   * `lagByAggregateType` maximum reaches it three minutes in a row. `Outbox` (or `OutboxAlarms`
   * given the config) creates the alarms. Low-latency types are refused: `processorLagThreshold`
   * watches them.
   * @default no per-type lag alarm
   */
  readonly lagAlarmSeconds?: Readonly<Record<string, number>>;
  /**
   * Keep every published envelope in an S3 archive for `retentionDays` (1–3650), so `replay` can
   * send past events to a queue long after the stream's 24 hours: `Outbox` deploys the archive
   * queue, the archiver function and the bucket, and `npm start` / the test stack run them
   * locally. See docs/replay.md.
   * @default no archive
   */
  readonly archive?: ArchiveConfig;
}

export const DEFAULT_RELAY_TUNING: RelayTuning = Object.freeze({
  batchSize: 100,
  maxBatchingWindowSeconds: 0,
  parallelizationFactor: 1,
  bisectBatchOnError: true,
  maxRetryAttempts: 10,
  maxRecordAgeSeconds: 86_400,
  publishConcurrency: 10,
  maxPublishAttempts: 4,
  timeoutSeconds: DEFAULT_RELAY_TIMEOUT_SECONDS,
});

export const DEFAULT_OUTBOX_RETENTION_SECONDS = 7 * 24 * 3600;
/** Ten years: far beyond any sensible retention, and keeps every slot's TTL a safe integer. */
export const MAX_OUTBOX_RETENTION_SECONDS = 10 * 365 * 24 * 3600;

/**
 * An RFC 3986 URI reference: the `uri-reference` format the `cloudevents` SDK checks `source`
 * against (ajv-formats' full format), less the `"` that format lets through and RFC 3986 does not.
 */
const URI_REFERENCE_PATTERN =
  /^(?:[a-z][a-z0-9+\-.]*:)?(?:\/?\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?(?:\[(?:(?:(?:(?:[0-9a-f]{1,4}:){6}|::(?:[0-9a-f]{1,4}:){5}|(?:[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){4}|(?:(?:[0-9a-f]{1,4}:){0,1}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){3}|(?:(?:[0-9a-f]{1,4}:){0,2}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){2}|(?:(?:[0-9a-f]{1,4}:){0,3}[0-9a-f]{1,4})?::[0-9a-f]{1,4}:|(?:(?:[0-9a-f]{1,4}:){0,4}[0-9a-f]{1,4})?::)(?:[0-9a-f]{1,4}:[0-9a-f]{1,4}|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?))|(?:(?:[0-9a-f]{1,4}:){0,5}[0-9a-f]{1,4})?::[0-9a-f]{1,4}|(?:(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{1,4})?::)|[Vv][0-9a-f]+\.[a-z0-9\-._~!$&'()*+,;=:]+)\]|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?)|(?:[a-z0-9\-._~!$&'()*+,;=]|%[0-9a-f]{2})*)(?::\d*)?(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*|\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)?|(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)?(?:\?(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?(?:#(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?$/i;
/**
 * The longest `source`: every consumer's inbox record has it in its sort key (`INBOX#<source>`),
 * which DynamoDB caps at 1,024 bytes, so a longer one would make every consumer's commit fail.
 * A URI reference is ASCII, so its length is its size in bytes.
 */
export const MAX_SOURCE_LENGTH = 1018;
const TOPIC_NAME_PATTERN = /^[A-Za-z0-9_-]{1,256}$/;
const FIFO_TOPIC_NAME_PATTERN = /^[A-Za-z0-9_-]{1,251}\.fifo$/;

const RANGES: Record<Exclude<keyof RelayTuning, 'bisectBatchOnError'>, readonly [number, number]> = {
  batchSize: [1, 10_000],
  maxBatchingWindowSeconds: [0, 300],
  parallelizationFactor: [1, 10],
  maxRetryAttempts: [0, 10_000],
  maxRecordAgeSeconds: [60, 604_800],
  publishConcurrency: [1, 64],
  maxPublishAttempts: [1, 10],
  timeoutSeconds: [1, 900],
};

/** Settings that AWS also takes as -1, meaning no limit. */
const UNLIMITED_ALLOWED: ReadonlySet<string> = new Set(['maxRetryAttempts', 'maxRecordAgeSeconds']);

/** The value as given: strings quoted, every number and bigint as written (`NaN`, `Infinity`, `100n`). */
const show = (value: unknown): string => {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return String(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value === undefined) return 'undefined';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function rejectUnknownKeys(value: Record<string, unknown>, allowed: readonly string[], field: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      throw new ConfigError(`${field}.${key}`, `unknown setting ${show(key)}; allowed: ${allowed.join(', ')}`);
    }
  }
}

function integerIn(value: unknown, [min, max]: readonly [number, number], field: string, unlimited = false): number {
  if (unlimited && value === -1) return value;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(field, `got ${show(value)}; allowed: ${unlimited ? '-1 (no limit) or ' : ''}an integer from ${min} to ${max}`);
  }
  return value;
}

function validateTopics(raw: unknown): TopicSettings[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    throw new ConfigError('topics', `got ${show(raw)}; allowed: a non-empty array of { name, fifo?, batching? }`);
  }
  const seen = new Set<string>();
  return raw.map((topic: unknown, i) => {
    const field = `topics[${i}]`;
    if (!isRecord(topic)) throw new ConfigError(field, `got ${show(topic)}; allowed: an object { name, fifo?, batching? }`);
    rejectUnknownKeys(topic, ['name', 'fifo', 'batching'], field);
    const { name, fifo = false } = topic;
    if (typeof fifo !== 'boolean') throw new ConfigError(`${field}.fifo`, `got ${show(fifo)}; allowed: true or false`);
    if (typeof name !== 'string') throw new ConfigError(`${field}.name`, `got ${show(name)}; allowed: a string`);
    if (fifo && !FIFO_TOPIC_NAME_PATTERN.test(name)) {
      throw new ConfigError(
        `${field}.name`,
        `got ${show(name)} for a FIFO topic; allowed: 1–251 letters, digits, "-" or "_" followed by ".fifo"`,
      );
    }
    if (!fifo && !TOPIC_NAME_PATTERN.test(name)) {
      throw new ConfigError(
        `${field}.name`,
        `got ${show(name)} for a standard topic; allowed: 1–256 letters, digits, "-" or "_"${name.endsWith('.fifo') ? ' (a name ending in ".fifo" needs fifo: true)' : ''}`,
      );
    }
    if (seen.has(name)) throw new ConfigError(`${field}.name`, `duplicate topic name ${show(name)}; topic names must be unique`);
    seen.add(name);
    const batching = validateBatching(topic.batching, `${field}.batching`);
    // Absent unless the topic batches: a config without batching stays as it was, down to its JSON.
    return batching === undefined ? { name, fifo } : { name, fifo, batching };
  });
}

function validateBatching(raw: unknown, field: string): TopicBatching | undefined {
  if (raw === undefined) return undefined;
  if (!isRecord(raw)) throw new ConfigError(field, `got ${show(raw)}; allowed: { maxEvents } (leave it out for one event per message)`);
  rejectUnknownKeys(raw, ['maxEvents'], field);
  return Object.freeze({ maxEvents: integerIn(raw.maxEvents, BATCHING_MAX_EVENTS_RANGE, `${field}.maxEvents`) });
}

function validateAggregateType(type: string, field: string): void {
  if (!AGGREGATE_TYPE_PATTERN.test(type)) {
    throw new ConfigError(
      field,
      `aggregate type ${show(type)} is not allowed; allowed: a letter then up to 63 letters, digits, ".", "_" or "-"`,
    );
  }
}

function validateRoutes(raw: unknown, topics: readonly TopicSettings[]): Record<string, string> {
  if (!isRecord(raw) || Object.keys(raw).length === 0) {
    throw new ConfigError('routes', `got ${show(raw)}; allowed: a non-empty object mapping aggregate type to topic name`);
  }
  const names = topics.map((t) => t.name);
  const routes: Record<string, string> = {};
  for (const [type, topic] of Object.entries(raw)) {
    validateAggregateType(type, `routes.${type}`);
    if (typeof topic !== 'string' || !names.includes(topic)) {
      throw new ConfigError(`routes.${type}`, `routes to unknown topic ${show(topic)}; allowed: ${names.map(show).join(', ')}`);
    }
    routes[type] = topic;
  }
  return routes;
}

/** The entries whose value is not `undefined`: a setting given as `undefined` takes its default, as a missing one does. */
const withoutUndefined = (value: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));

function validateRelay(raw: unknown): RelayTuning {
  if (raw === undefined) return DEFAULT_RELAY_TUNING;
  if (!isRecord(raw)) throw new ConfigError('relay', `got ${show(raw)}; allowed: an object of relay settings`);
  rejectUnknownKeys(raw, Object.keys(DEFAULT_RELAY_TUNING), 'relay');
  const merged = { ...DEFAULT_RELAY_TUNING, ...withoutUndefined(raw) };
  if (typeof merged.bisectBatchOnError !== 'boolean') {
    throw new ConfigError('relay.bisectBatchOnError', `got ${show(merged.bisectBatchOnError)}; allowed: true or false`);
  }
  for (const [key, range] of Object.entries(RANGES)) {
    integerIn(merged[key as keyof typeof RANGES], range, `relay.${key}`, UNLIMITED_ALLOWED.has(key));
  }
  return Object.freeze(merged as RelayTuning);
}

/**
 * Validates an outbox configuration and fills in its defaults. Throws a {@link ConfigError}
 * naming the field, the value given and what is allowed.
 *
 * @example
 * ```ts
 * export const config = defineConfig({
 *   source: 'urn:example:shop',
 *   topics: [{ name: 'orders.fifo', fifo: true }],
 *   routes: { order: 'orders.fifo' },
 * });
 * ```
 */
export function defineConfig(input: OutboxConfigInput): OutboxConfig {
  const raw: unknown = input;
  if (!isRecord(raw)) throw new ConfigError('(root)', `got ${show(raw)}; allowed: an object`);
  rejectUnknownKeys(
    raw,
    [
      'source',
      'topics',
      'routes',
      'lowLatencyAggregateTypes',
      'outboxRetentionSeconds',
      'relay',
      'eventTypes',
      'undeclaredEventTypes',
      'lagAlarmSeconds',
      'archive',
    ],
    'config',
  );
  // Destructuring defaults apply to settings given as `undefined` too, as in validateRelay.
  const { source, lowLatencyAggregateTypes = [], outboxRetentionSeconds = DEFAULT_OUTBOX_RETENTION_SECONDS } = raw;
  if (typeof source !== 'string' || source === '' || !URI_REFERENCE_PATTERN.test(source)) {
    throw new ConfigError(
      'source',
      `got ${show(source)}; allowed: a non-empty RFC 3986 URI reference, e.g. "urn:example:shop" (ASCII only, "%" only before two hex digits; percent-encode spaces, non-ASCII characters and | " < > \\ ^ \` { })`,
    );
  }
  if (source.length > MAX_SOURCE_LENGTH) {
    throw new ConfigError(
      'source',
      `is ${source.length} characters long ("${source.slice(0, 40)}…"); allowed: at most ${MAX_SOURCE_LENGTH}, since consumers keep it in their inbox records' sort key, which DynamoDB caps at 1,024 bytes`,
    );
  }
  const topics = validateTopics(raw.topics);
  const routes = validateRoutes(raw.routes, topics);
  if (!Array.isArray(lowLatencyAggregateTypes)) {
    throw new ConfigError('lowLatencyAggregateTypes', `got ${show(lowLatencyAggregateTypes)}; allowed: an array of routed aggregate types`);
  }
  lowLatencyAggregateTypes.forEach((type: unknown, i) => {
    if (typeof type !== 'string' || !Object.hasOwn(routes, type)) {
      throw new ConfigError(
        `lowLatencyAggregateTypes[${i}]`,
        `got ${show(type)}; allowed: a routed aggregate type (${Object.keys(routes).map(show).join(', ')})`,
      );
    }
    if (lowLatencyAggregateTypes.indexOf(type) !== i) {
      throw new ConfigError(`lowLatencyAggregateTypes[${i}]`, `duplicate aggregate type ${show(type)}`);
    }
  });
  const patternLength = Math.max(
    ...relayFilterPatterns({ lowLatencyAggregateTypes: lowLatencyAggregateTypes as string[] }).map((p) => JSON.stringify(p).length),
  );
  if (patternLength > MAX_FILTER_PATTERN_LENGTH) {
    throw new ConfigError(
      'lowLatencyAggregateTypes',
      `${lowLatencyAggregateTypes.length} aggregate types make the relay's Lambda filter pattern ${patternLength} characters long; allowed: at most ${MAX_FILTER_PATTERN_LENGTH} characters (Lambda's Filter.Pattern limit): list fewer or shorter low-latency aggregate types`,
    );
  }
  if (
    typeof outboxRetentionSeconds !== 'number' ||
    !Number.isInteger(outboxRetentionSeconds) ||
    outboxRetentionSeconds <= 0 ||
    outboxRetentionSeconds > MAX_OUTBOX_RETENTION_SECONDS
  ) {
    throw new ConfigError(
      'outboxRetentionSeconds',
      `got ${show(outboxRetentionSeconds)}; allowed: a positive whole number of seconds, at most ${MAX_OUTBOX_RETENTION_SECONDS} (10 years)`,
    );
  }
  const relay = validateRelay(raw.relay);
  // Absent unless declared: a config without a catalog stays as it was, down to its JSON.
  const eventTypes = raw.eventTypes === undefined ? undefined : validateEventTypes(raw.eventTypes, source, routes);
  if (eventTypes !== undefined && Object.hasOwn(eventTypes, UNDECLARED_EVENT_TYPE)) {
    throw new ConfigError(
      `eventTypes[${show(UNDECLARED_EVENT_TYPE)}]`,
      `event type ${show(UNDECLARED_EVENT_TYPE)} is reserved: the relay's and the processor's lagByEventType metric count every undeclared type under it; allowed: any other name`,
    );
  }
  const undeclaredEventTypes = validateUndeclared(raw.undeclaredEventTypes, eventTypes !== undefined);
  const lagAlarmSeconds =
    raw.lagAlarmSeconds === undefined ? undefined : validateLagAlarms(raw.lagAlarmSeconds, routes, lowLatencyAggregateTypes as string[]);
  const archive = raw.archive === undefined ? undefined : validateArchive(raw.archive);
  return Object.freeze({
    source,
    topics: Object.freeze(topics),
    routes: Object.freeze(routes),
    lowLatencyAggregateTypes: Object.freeze([...(lowLatencyAggregateTypes as string[])]),
    outboxRetentionSeconds,
    relay,
    ...(eventTypes === undefined ? {} : { eventTypes, undeclaredEventTypes }),
    ...(lagAlarmSeconds === undefined ? {} : { lagAlarmSeconds: Object.freeze(lagAlarmSeconds) }),
    ...(archive === undefined ? {} : { archive }),
  });
}

function validateArchive(raw: unknown): ArchiveConfig {
  if (!isRecord(raw)) throw new ConfigError('archive', `got ${show(raw)}; allowed: an object { retentionDays }, or no archive setting`);
  rejectUnknownKeys(raw, ['retentionDays'], 'archive');
  return Object.freeze({ retentionDays: integerIn(raw.retentionDays, [1, MAX_ARCHIVE_RETENTION_DAYS], 'archive.retentionDays') });
}

/** Name of the environment variable that carries the config to deployed functions as JSON. */
export const CONFIG_ENV = 'OUTBOX_CONFIG';

/**
 * Serialises a config for {@link CONFIG_ENV}; {@link configFromEnv} reads it back. The event
 * catalog's schemas are code and stay behind: the config read back declares the same types and
 * versions, without schemas.
 */
export const serializeConfig = (config: OutboxConfig): string =>
  JSON.stringify(config.eventTypes === undefined ? config : { ...config, eventTypes: catalogWithoutSchemas(config.eventTypes) });

/**
 * The config as the deployed relay and processor get it in `OUTBOX_CONFIG`: of the event catalog
 * only the declared types' names, each with its newest version (`{ "order.placed": { "version": 2 } }`,
 * about 17 bytes besides the name), which bound their `lagByEventType` metric; no schemas,
 * descriptions, `aggregateType`s or `undeclaredEventTypes`, and no lag alarms (`lagAlarmSeconds`),
 * which they never read. All of it counts against Lambda's 4 KB of environment variables, which
 * `RelayFunction` checks at synth.
 */
export function serializeRuntimeConfig(config: OutboxConfig): string {
  // The lag alarms and the archive's retention are the stack's business: the functions never read them.
  const { eventTypes: catalog, undeclaredEventTypes: _undeclared, lagAlarmSeconds: _alarms, archive: _archive, ...runtime } = config;
  if (catalog === undefined) return JSON.stringify(runtime);
  const names = Object.fromEntries(Object.entries(catalog).map(([type, versions]) => [type, { version: versions.at(-1)?.version ?? 1 }]));
  return JSON.stringify({ ...runtime, eventTypes: names });
}

/**
 * Reads and validates the config from the environment, once, at cold start.
 * A missing or malformed variable fails with its name.
 */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env, variable = CONFIG_ENV): OutboxConfig {
  const text = env[variable];
  if (text === undefined || text === '') throw new EnvironmentError(variable, 'is not set; it must hold the outbox config as JSON');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new EnvironmentError(variable, `is not valid JSON (${(error as Error).message})`, { cause: error });
  }
  try {
    return defineConfig(parsed as OutboxConfigInput);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new EnvironmentError(variable, `holds an invalid outbox config: ${error.message}`, { cause: error });
  }
}

/** The topic an aggregate type routes to, or `undefined` when it has no route. */
export function topicFor(config: OutboxConfig, aggregateType: string): TopicSettings | undefined {
  const name = Object.hasOwn(config.routes, aggregateType) ? config.routes[aggregateType] : undefined;
  return name === undefined ? undefined : config.topics.find((t) => t.name === name);
}

/** Reads a required environment variable, failing with its name. */
export function requireEnv(variable: string, env: NodeJS.ProcessEnv = process.env): string {
  const value = env[variable];
  if (value === undefined || value === '') throw new EnvironmentError(variable, 'is not set');
  return value;
}
