/**
 * The write helper's options: their defaults and their checks when an `Outbox` is built, so a
 * wrong option fails there, saying what was given and what is allowed, and not at a later write.
 */

import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { documentClientOf } from '../aws/document-client.js';
import { DYNAMODB_TABLE_NAME_PATTERN, DYNAMODB_TABLE_NAME_RULE } from '../aws/dynamodb-table-name.js';
import { BACKOFF_DELAY_ALLOWED, type BackoffOptions, isBackoffDelay } from '../backoff.js';
import { checkedConfig, configRefusal, type OutboxConfig } from '../config.js';
import { WriteValidationError } from '../errors.js';
import { showValue } from '../show-value.js';
import { objectHasUnknownKeys, unknownKeys } from '../unknown-keys.js';

/**
 * What an `Outbox` is built with.
 *
 * @example
 * ```ts
 * const options: OutboxOptions = { config, tableName: 'shop', client: new DynamoDBClient({}), retry: { maxAttempts: 5 } };
 * const outbox = new Outbox(options);
 * ```
 */
export interface OutboxOptions {
  readonly config: OutboxConfig;
  /** The outbox table; business operations without a `TableName` go to it too. */
  readonly tableName: string;
  /** Created once and reused; a plain `DynamoDBClient` is wrapped in a DocumentClient. */
  readonly client: DynamoDBClient | DynamoDBDocumentClient;
  /**
   * Bounded retries: `maxAttempts` with jittered exponential backoff for transaction conflicts
   * and throttling; `maxSequenceRaces` with a short jitter for races with other writers of
   * the same aggregate (in other processes: one instance never races itself).
   * @default { maxAttempts: 10, baseDelayMs: 20, maxDelayMs: 1000, maxSequenceRaces: 100 }
   */
  readonly retry?: Partial<WriteRetryOptions>;
  /** How long an idempotency key's result is kept. @default 86400 (24 h) */
  readonly idempotencyTtlSeconds?: number;
  /** @default () => new Date() */
  readonly clock?: () => Date;
}

/**
 * The write helper's retry bounds; see {@link OutboxOptions.retry}.
 *
 * @example
 * ```ts
 * const retry: Partial<WriteRetryOptions> = { maxAttempts: 5, maxSequenceRaces: 20 };
 * const outbox = new Outbox({ config, tableName: 'shop', client, retry });
 * ```
 */
export interface WriteRetryOptions extends BackoffOptions {
  /** Retries after losing a race with another writer of the same aggregate (each one is their progress). */
  readonly maxSequenceRaces: number;
}

/** The options with their defaults applied and the client a DocumentClient. */
export interface ResolvedOptions {
  readonly config: OutboxConfig;
  readonly tableName: string;
  readonly client: DynamoDBDocumentClient;
  readonly retry: WriteRetryOptions;
  readonly idempotencyTtlSeconds: number;
  readonly clock: () => Date;
}

const DEFAULT_RETRY: WriteRetryOptions = { maxAttempts: 10, baseDelayMs: 20, maxDelayMs: 1000, maxSequenceRaces: 100 };
const OPTION_KEYS = ['config', 'tableName', 'client', 'retry', 'idempotencyTtlSeconds', 'clock'];
const RETRY_KEYS = Object.keys(DEFAULT_RETRY);

/** The options checked, with their defaults; a `WriteValidationError` (`INVALID_OPERATION`) names the first wrong one. */
export function resolveOptions(options: OutboxOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null) {
    throw new WriteValidationError(
      'INVALID_OPERATION',
      `options is ${showValue(options)}; allowed: an object with config, tableName and client`,
    );
  }
  // The SDK would then reuse the first request's resolved middleware for every later one,
  // the per-request attempt watch included (and the DocumentClient refuses it with a plain Error).
  if ((options.client as { config?: { cacheMiddleware?: unknown } } | undefined)?.config?.cacheMiddleware === true) {
    throw new WriteValidationError(
      'INVALID_OPERATION',
      "options.client has cacheMiddleware: true, which reuses one request's middleware for the next; allowed: a client whose cacheMiddleware is false or unset",
    );
  }
  // `retry: 5` for five attempts would otherwise have no keys to refuse, and leave every default in force.
  const given = (options as { retry?: unknown }).retry;
  if (given !== undefined && (typeof given !== 'object' || given === null || Array.isArray(given))) {
    throw new WriteValidationError(
      'INVALID_OPERATION',
      `options.retry is ${showValue(given)}; allowed: an object with any of ${RETRY_KEYS.join(', ')}, e.g. { maxAttempts: 5 }, or leave it out`,
    );
  }
  // A misspelt option would otherwise be ignored, and the default it meant to change used silently.
  for (const [where, value, allowed] of [
    ['options', options, OPTION_KEYS],
    ['options.retry', options.retry ?? {}, RETRY_KEYS],
  ] as const) {
    const unknown = unknownKeys(value, allowed);
    if (unknown.length > 0) {
      throw new WriteValidationError('INVALID_OPERATION', objectHasUnknownKeys(where, unknown, allowed));
    }
  }
  const config = checkParts(options);
  // The SDK sets a DocumentClient's options on the client it wraps: wrapping it with none would take
  // away those of a DocumentClient the caller made from it (its removeUndefinedValues, say).
  // A client of another copy of the SDK is wrapped too: its class is not this copy's.
  const client = documentClientOf(options.client);
  const retry = { ...DEFAULT_RETRY, ...options.retry };
  const idempotencyTtlSeconds = options.idempotencyTtlSeconds ?? 86_400;
  for (const [name, value, min] of [
    ['retry.maxAttempts', retry.maxAttempts, 1],
    ['retry.maxSequenceRaces', retry.maxSequenceRaces, 0],
    ['idempotencyTtlSeconds', idempotencyTtlSeconds, 1],
  ] as const) {
    // Plain JS can pass anything: a string TTL would be stored as a string, which TTL ignores.
    if (!(typeof value === 'number' && Number.isInteger(value) && value >= min)) {
      throw new WriteValidationError('INVALID_OPERATION', `${name} is ${showValue(value)}; allowed: a whole number from ${min}`);
    }
  }
  // The relay's and the redrives' rule for a delay bound: past setTimeout's reach (2^31 - 1 ms) a retry would not pause at all.
  for (const [name, value] of [
    ['retry.baseDelayMs', retry.baseDelayMs],
    ['retry.maxDelayMs', retry.maxDelayMs],
  ] as const) {
    if (!isBackoffDelay(value)) {
      throw new WriteValidationError('INVALID_OPERATION', `${name} is ${showValue(value)}; allowed: ${BACKOFF_DELAY_ALLOWED}`);
    }
  }
  return {
    config,
    tableName: options.tableName,
    client,
    retry,
    idempotencyTtlSeconds,
    clock: options.clock ?? (() => new Date()),
  };
}

/**
 * Plain JS, or an unset environment variable, can hand the helper nothing where it needs a part: a
 * missing table name would reach DynamoDB with every write, a missing client fail at the first.
 */
function checkParts(options: OutboxOptions): OutboxConfig {
  const { tableName, client, clock } = options as Partial<Record<keyof OutboxOptions, unknown>>;
  const problem = (name: string, value: unknown, allowed: string): WriteValidationError =>
    new WriteValidationError('INVALID_OPERATION', `options.${name} is ${showValue(value)}; allowed: ${allowed}`);
  // A plain object (a config parsed from JSON in plain JS) is checked and given its defaults: without
  // them the first write would fail after it was planned (a `NaN` expiry), as an outcome the helper could not tell.
  const config = checkedConfig(
    options.config,
    (cause) => new WriteValidationError('INVALID_OPERATION', `options.config ${configRefusal(cause)}`, { cause }),
  );
  if (typeof tableName !== 'string' || !DYNAMODB_TABLE_NAME_PATTERN.test(tableName)) {
    throw problem('tableName', tableName, `the outbox table's name ${DYNAMODB_TABLE_NAME_RULE}`);
  }
  if (typeof client !== 'object' || client === null || typeof (client as { send?: unknown }).send !== 'function') {
    throw problem('client', client, 'a DynamoDBClient or a DynamoDBDocumentClient');
  }
  if (clock !== undefined && typeof clock !== 'function') throw problem('clock', clock, 'a function returning a Date, or leave it out');
  return config;
}
