/**
 * The checks of the config's fields that {@link defineConfig} runs: each throws a
 * {@link ConfigError} naming the field, the value given and what is allowed.
 */

import {
  type ArchiveConfig,
  BATCHING_MAX_EVENTS_RANGE,
  DEFAULT_RELAY_TUNING,
  MAX_ARCHIVE_RETENTION_DAYS,
  type RelayTuning,
  type TopicBatching,
  type TopicSettings,
} from './config-types.js';
import { ConfigError } from './errors.js';
import { MAX_RELAY_TIMEOUT_SECONDS } from './relay-filter.js';
import { showValue as show } from './show-value.js';
import { AGGREGATE_TYPE_PATTERN } from './slot.js';
import { unknownKeys, unknownKeysDetail } from './unknown-keys.js';

/**
 * An RFC 3986 URI reference: the `uri-reference` format the `cloudevents` SDK checks `source`
 * against (ajv-formats' full format), less the `"` that format lets through and RFC 3986 does not.
 */
export const URI_REFERENCE_PATTERN =
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
  timeoutSeconds: [1, MAX_RELAY_TIMEOUT_SECONDS],
};

/** Settings that AWS also takes as -1, meaning no limit. */
const UNLIMITED_ALLOWED: ReadonlySet<string> = new Set(['maxRetryAttempts', 'maxRecordAgeSeconds']);

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function rejectUnknownKeys(value: Record<string, unknown>, allowed: readonly string[], field: string): void {
  const [key] = unknownKeys(value, allowed);
  if (key !== undefined) throw new ConfigError(`${field}.${key}`, unknownKeysDetail([key], allowed));
}

function integerIn(value: unknown, [min, max]: readonly [number, number], field: string, unlimited = false): number {
  if (unlimited && value === -1) return value;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(
      field,
      `got ${show(value)}; allowed: ${unlimited ? '-1 (no limit) or ' : ''}a whole number from ${min} to ${max}`,
    );
  }
  return value;
}

export function validateTopics(raw: unknown): TopicSettings[] {
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
    return Object.freeze(batching === undefined ? { name, fifo } : { name, fifo, batching });
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

export function validateRoutes(raw: unknown, topics: readonly TopicSettings[]): Record<string, string> {
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

export function validateRelay(raw: unknown): RelayTuning {
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

export function validateArchive(raw: unknown): ArchiveConfig {
  if (!isRecord(raw)) throw new ConfigError('archive', `got ${show(raw)}; allowed: an object { retentionDays }, or no archive setting`);
  rejectUnknownKeys(raw, ['retentionDays'], 'archive');
  return Object.freeze({ retentionDays: integerIn(raw.retentionDays, [1, MAX_ARCHIVE_RETENTION_DAYS], 'archive.retentionDays') });
}

/** Checks a list of distinct routed aggregate types (`lowLatencyAggregateTypes`, `handoverAggregateTypes`). */
export function validateAggregateTypeList(field: string, value: unknown, routes: Readonly<Record<string, string>>): string[] {
  if (!Array.isArray(value)) throw new ConfigError(field, `got ${show(value)}; allowed: an array of routed aggregate types`);
  value.forEach((type: unknown, i) => {
    if (typeof type !== 'string' || !Object.hasOwn(routes, type)) {
      throw new ConfigError(
        `${field}[${i}]`,
        `got ${show(type)}; allowed: a routed aggregate type (${Object.keys(routes).map(show).join(', ')})`,
      );
    }
    if (value.indexOf(type) !== i) throw new ConfigError(`${field}[${i}]`, `duplicate aggregate type ${show(type)}`);
  });
  return [...(value as string[])];
}
