import {
  isRecord,
  MAX_SOURCE_LENGTH,
  rejectUnknownKeys,
  URI_REFERENCE_PATTERN,
  validateAggregateTypeList,
  validateArchive,
  validateRelay,
  validateRoutes,
  validateTopics,
} from './config-fields.js';
import {
  type ArchiveConfig,
  DEFAULT_OUTBOX_RETENTION_SECONDS,
  MAX_OUTBOX_RETENTION_SECONDS,
  type RelayTuning,
  type TopicConfig,
  type TopicSettings,
} from './config-types.js';
import { jsonFromEnv, shownEnvValue } from './env.js';
import { ConfigError, EnvironmentError } from './errors.js';
import {
  catalogWithoutSchemas,
  type EventTypeCatalog,
  type EventTypeInput,
  type UndeclaredEventTypes,
  validateEventTypes,
  validateUndeclared,
} from './event-types.js';
import { validateLagAlarms } from './lag-alarms.js';
import { checkEventTypeDimension } from './metric-dimension.js';
import { MAX_FILTER_PATTERN_LENGTH, relayFilterPatterns } from './relay-filter.js';
import { showValue as show } from './show-value.js';
import { AGGREGATE_TYPE_PATTERN } from './slot.js';

export * from './config-types.js';
export { AGGREGATE_TYPE_PATTERN, MAX_SOURCE_LENGTH };

/** The validated outbox configuration shared by the CDK stack, the relay and the local stack. */
export interface OutboxConfig {
  /** CloudEvents `source` of every event written through this outbox (a URI reference). */
  readonly source: string;
  readonly topics: readonly TopicSettings[];
  /** Aggregate type → topic name. Every aggregate type written must have a route. */
  readonly routes: Readonly<Record<string, string>>;
  /** Aggregate types published by the low-latency stream processor instead of the Lambda relay. */
  readonly lowLatencyAggregateTypes: readonly string[];
  /** Aggregate types both paths publish, whatever `lowLatencyAggregateTypes` says, while a type moves between them. */
  readonly handoverAggregateTypes: readonly string[];
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

/** What a user writes: everything but `source`, `topics` and `routes` has a default. */
export interface OutboxConfigInput {
  readonly source: string;
  readonly topics: readonly TopicConfig[];
  readonly routes: Readonly<Record<string, string>>;
  /** @default [] */
  readonly lowLatencyAggregateTypes?: readonly string[];
  /**
   * Routed aggregate types published by BOTH the Lambda relay and the stream processor, whatever
   * `lowLatencyAggregateTypes` says (a type may be in both lists: this one wins). It moves a type
   * between the paths without a moment where neither publishes it: deploy once with the type
   * added here, then once with it moved in or out of `lowLatencyAggregateTypes` and removed from
   * here. Each event then reaches its topic up to twice, the first copy in the aggregate's order;
   * a FIFO topic drops the second within its 5-minute deduplication window, the consumer's inbox
   * skips it otherwise. See docs/processor.md.
   * @example
   * ```ts
   * // Deployment 1 of moving `payment` onto the low-latency path:
   * defineConfig({ source, topics, routes, lowLatencyAggregateTypes: [], handoverAggregateTypes: ['payment'] });
   * // Deployment 2, once the first is complete:
   * defineConfig({ source, topics, routes, lowLatencyAggregateTypes: ['payment'] });
   * ```
   * @default []
   */
  readonly handoverAggregateTypes?: readonly string[];
  /** 1 s to 10 years. @default 604800 (7 days) */
  readonly outboxRetentionSeconds?: number;
  readonly relay?: Partial<RelayTuning>;
  /**
   * The event catalog: event type → its declaration `{ version, schema?, aggregateType?, description? }`,
   * or a list of its versions. The write helper checks each event's `data` against the schema of
   * the version the event names in `version`, else the type's newest, and the envelope names that
   * version in `dataschema`; the consumer helper and `dynamodb-outbox catalog` read the same
   * declarations. See docs/catalog.md.
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
      'handoverAggregateTypes',
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
  const {
    source,
    lowLatencyAggregateTypes = [],
    handoverAggregateTypes = [],
    outboxRetentionSeconds = DEFAULT_OUTBOX_RETENTION_SECONDS,
  } = raw;
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
  const lowLatency = validateAggregateTypeList('lowLatencyAggregateTypes', lowLatencyAggregateTypes, routes);
  const handover = validateAggregateTypeList('handoverAggregateTypes', handoverAggregateTypes, routes);
  const patternLength = Math.max(
    ...relayFilterPatterns({ lowLatencyAggregateTypes: lowLatency, handoverAggregateTypes: handover }).map((p) => JSON.stringify(p).length),
  );
  if (patternLength > MAX_FILTER_PATTERN_LENGTH) {
    throw new ConfigError(
      'lowLatencyAggregateTypes',
      `${lowLatency.length} aggregate types make the relay's Lambda filter pattern ${patternLength} characters long; allowed: at most ${MAX_FILTER_PATTERN_LENGTH} characters (Lambda's Filter.Pattern limit): list fewer or shorter low-latency aggregate types`,
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
  // A declared type is a metric dimension value: CloudWatch's rules and the buckets' names bound it.
  for (const type of Object.keys(eventTypes ?? {})) checkEventTypeDimension(type);
  const undeclaredEventTypes = validateUndeclared(raw.undeclaredEventTypes, eventTypes !== undefined);
  const lagAlarmSeconds = raw.lagAlarmSeconds === undefined ? undefined : validateLagAlarms(raw.lagAlarmSeconds, routes, lowLatency);
  const archive = raw.archive === undefined ? undefined : validateArchive(raw.archive);
  const config: OutboxConfig = Object.freeze({
    source,
    topics: Object.freeze(topics),
    routes: Object.freeze(routes),
    lowLatencyAggregateTypes: Object.freeze(lowLatency),
    handoverAggregateTypes: Object.freeze(handover),
    outboxRetentionSeconds,
    relay,
    ...(eventTypes === undefined ? {} : { eventTypes, undeclaredEventTypes }),
    ...(lagAlarmSeconds === undefined ? {} : { lagAlarmSeconds: Object.freeze(lagAlarmSeconds) }),
    ...(archive === undefined ? {} : { archive }),
  });
  MADE.add(config);
  return config;
}

/** The configs {@link defineConfig} returned (frozen): {@link checkedConfig} passes them as they are. */
const MADE = new WeakSet<OutboxConfig>();

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
 * Reads and validates the config from the environment, once, at cold start. A missing or malformed
 * variable fails with its name; an invalid config under that heading alone, its field and detail in brackets.
 */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env, variable = CONFIG_ENV): OutboxConfig {
  const allowed = 'the outbox config as JSON, as serializeConfig writes it (the Outbox construct sets it)';
  const { text, value } = jsonFromEnv(variable, env, allowed);
  return checkedConfig(value, (error) => {
    const refusal =
      error.field === '(root)' ? `got ${shownEnvValue(text)}` : `holds an invalid outbox config (at ${error.field}: ${error.detail})`;
    return new EnvironmentError(variable, `${refusal}; allowed: ${allowed}`, { cause: error });
  });
}

/** What a part given a config takes, as its refusal of another says. */
export const CONFIG_ALLOWED = 'the outbox config defineConfig returns (or an object defineConfig accepts)';

/**
 * `config` as {@link defineConfig} validates it, for a part given a config it did not necessarily
 * make (an object literal, a spread of one with other topics, JSON read back): one it made passes
 * unchanged, its schemas kept. Its {@link ConfigError} is handed to `wrap`, whose error is thrown
 * instead, so that the refusal is the part's own and names what the part was given; any other
 * error passes as it is. Nothing else (undefined, null, a string) gets as far as defineConfig: its
 * ConfigError says what was given and {@link CONFIG_ALLOWED}. {@link configRefusal} words either.
 *
 * @example
 * ```ts
 * checkedConfig(options.config, (error) => new MyOptionsError('config', configRefusal(error), { cause: error }));
 * ```
 */
export function checkedConfig(config: unknown, wrap: (error: ConfigError) => Error): OutboxConfig {
  try {
    if (MADE.has(config as OutboxConfig)) return config as OutboxConfig;
    if (!isRecord(config)) throw new ConfigError('(root)', `got ${show(config)}; allowed: ${CONFIG_ALLOWED}`);
    return defineConfig(config as unknown as OutboxConfigInput);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw wrap(error);
  }
}

/** The one wording of a part's refusal of its `config`, after the field's name: what was given and what is allowed. */
export const configRefusal = (error: ConfigError): string =>
  error.field === '(root)' ? error.detail : `is not a valid outbox config (at ${error.field}: ${error.detail}); allowed: ${CONFIG_ALLOWED}`;

/** The topic an aggregate type routes to, or `undefined` when it has no route. */
export function topicFor(config: OutboxConfig, aggregateType: string): TopicSettings | undefined {
  const name = Object.hasOwn(config.routes, aggregateType) ? config.routes[aggregateType] : undefined;
  return name === undefined ? undefined : config.topics.find((t) => t.name === name);
}
