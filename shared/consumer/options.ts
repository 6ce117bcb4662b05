import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { snsTopicArnProblem } from '../aws/sns-topic-arn.js';
import { validateCatalogOption } from '../catalog/consumer-schemas.js';
import { showValue as show } from '../show-value.js';
import { ConsumerOptionsError } from './errors.js';
import { CONSUMER_LIMITS } from './limits.js';
import type { ClaimHandler, ConsumerOptions, EventHandler, TransactionHandler } from './types.js';

export const CONSUMER_NAME_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
const OPTION_KEYS = [
  'name',
  'sources',
  'topicArns',
  'handlers',
  'catalog',
  'inbox',
  'sequenceTracking',
  'concurrency',
  'commit',
  'logger',
  'metrics',
  'now',
  'tracing',
];
const INBOX_KEYS = ['document', 'tableName', 'retentionSeconds', 'claimTimeoutSeconds', 'legacyKeyCheck'];
const HANDLER_KEYS = ['idempotency', 'schema', 'handle'];
export const POLL_KEYS = ['sqs', 'queueUrl', 'consumer', 'maxMessages', 'waitTimeSeconds', 'visibilityTimeoutSeconds', 'retryDelaySeconds'];
const POLLER_KEYS = ['concurrency', 'backoff', 'onBatch', 'onError'];
const BACKOFF_KEYS = ['baseDelayMs', 'maxDelayMs'];
/** How long a poller waits after a failed poll: up to 500 ms after the first, doubling up to 30 s. */
export const DEFAULT_POLLER_BACKOFF = { baseDelayMs: 500, maxDelayMs: 30_000 } as const;
/** SQS's longest visibility timeout: 12 hours. */
const MAX_VISIBILITY_TIMEOUT_SECONDS = 43_200;
/**
 * The shortest visibility timeout a poll takes. A batch's claims lapse up to 2 s before its
 * visibility timeout ends (the 1 s hand-out margin, then rounding down to the second): at 2 s or
 * less a claim could lapse before its handler even started, or at once after, and at 0 or 1 s
 * after a long poll every claim-mode message would fail with `CLAIM_DEADLINE_PASSED`.
 */
export const MIN_VISIBILITY_TIMEOUT_SECONDS = 3;
/** What a poll's visibility timeout may be, and why no less. */
export const VISIBILITY_TIMEOUT_ALLOWED = `a whole number of seconds from ${MIN_VISIBILITY_TIMEOUT_SECONDS} to ${MAX_VISIBILITY_TIMEOUT_SECONDS} (a batch's claims lapse up to 2 s before its visibility timeout ends, so 2 s or less leaves them no time)`;

/** What a value is, for values that do not print well (clients, schemas): its class, else {@link show}. */
const shapeOf = (value: unknown): string =>
  typeof value === 'object' && value !== null ? `an instance of ${value.constructor?.name || 'Object'}` : show(value);
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function rejectUnknown(value: Record<string, unknown>, allowed: readonly string[], field: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key))
      throw new ConsumerOptionsError(`${field}.${key}`, `unknown option ${show(key)}; allowed: ${allowed.join(', ')}`);
  }
}

function positiveInteger(value: unknown, field: string): void {
  if (value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value < 1)) {
    throw new ConsumerOptionsError(field, `got ${show(value)}; allowed: a positive whole number`);
  }
}

function wholeNumberIn(value: unknown, field: string, min: number, max: number, allowed = `a whole number from ${min} to ${max}`): void {
  if (value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)) {
    throw new ConsumerOptionsError(field, `got ${show(value)}; allowed: ${allowed}`);
  }
}

function validateHandler(type: string, handler: unknown): void {
  const field = `handlers[${show(type)}]`;
  if (!isRecord(handler))
    throw new ConsumerOptionsError(field, `got ${show(handler)}; allowed: an object { handle, schema?, idempotency? }`);
  rejectUnknown(handler, HANDLER_KEYS, field);
  if (typeof handler.handle !== 'function')
    throw new ConsumerOptionsError(`${field}.handle`, `got ${show(handler.handle)}; allowed: a function`);
  if (handler.idempotency !== undefined && handler.idempotency !== 'transaction' && handler.idempotency !== 'claim') {
    throw new ConsumerOptionsError(`${field}.idempotency`, `got ${show(handler.idempotency)}; allowed: "transaction" or "claim"`);
  }
  const schema = handler.schema as { '~standard'?: { validate?: unknown } } | undefined;
  if (schema !== undefined && typeof schema?.['~standard']?.validate !== 'function') {
    throw new ConsumerOptionsError(
      `${field}.schema`,
      `got ${shapeOf(schema)}, which is not a Standard Schema (no ~standard.validate); allowed: a zod, valibot, ArkType … schema`,
    );
  }
}

/** Checks a list of strings option: `sources` (required, not empty) or `topicArns`. */
function stringList(value: unknown, field: string, allowed: string, check: (item: string) => string | undefined, required: boolean): void {
  if (value === undefined && !required) return;
  if (!Array.isArray(value) || (required && value.length === 0)) {
    throw new ConsumerOptionsError(field, `got ${show(value)}; allowed: ${allowed}`);
  }
  value.forEach((item: unknown, index) => {
    const problem = typeof item === 'string' ? check(item) : `got ${show(item)}, which is not a string`;
    if (problem !== undefined) throw new ConsumerOptionsError(`${field}[${index}]`, `${problem}; allowed: ${allowed}`);
  });
}

const sourceProblem = (source: string): string | undefined => {
  const bytes = Buffer.byteLength(source);
  if (bytes > 0 && bytes <= CONSUMER_LIMITS.sourceBytes) return undefined;
  return `got ${show(source.length > 120 ? `${source.slice(0, 120)}…` : source)} (${bytes} bytes)`;
};
const topicArnProblem = (arn: string): string | undefined => (snsTopicArnProblem(arn) === undefined ? undefined : `got ${show(arn)}`);

/** Checks the options so that a typo fails loudly, at cold start, naming the field. */
export function validateConsumerOptions(options: ConsumerOptions): void {
  const raw: unknown = options;
  if (!isRecord(raw)) throw new ConsumerOptionsError('(root)', `got ${show(raw)}; allowed: an object`);
  rejectUnknown(raw, OPTION_KEYS, 'options');
  if (typeof raw.name !== 'string' || !CONSUMER_NAME_PATTERN.test(raw.name)) {
    throw new ConsumerOptionsError('name', `got ${show(raw.name)}; allowed: 1–64 letters, digits, ".", "_" or "-"`);
  }
  stringList(
    raw.sources,
    'sources',
    `a non-empty list of the CloudEvents sources to accept, each 1–${CONSUMER_LIMITS.sourceBytes} bytes, e.g. [config.source] or ["urn:example:shop"]`,
    sourceProblem,
    true,
  );
  stringList(
    raw.topicArns,
    'topicArns',
    'a list of SNS topic ARNs, e.g. ["arn:aws:sns:eu-west-1:123456789012:orders.fifo"]',
    topicArnProblem,
    false,
  );
  if (!isRecord(raw.handlers) || Object.keys(raw.handlers).length === 0) {
    throw new ConsumerOptionsError('handlers', `got ${show(raw.handlers)}; allowed: an object mapping event type to handler`);
  }
  for (const [type, handler] of Object.entries(raw.handlers)) validateHandler(type, handler);
  if (raw.catalog !== undefined) validateCatalogOption(raw.catalog, raw.sources);
  if (!isRecord(raw.inbox)) throw new ConsumerOptionsError('inbox', `got ${show(raw.inbox)}; allowed: { document, tableName, … }`);
  rejectUnknown(raw.inbox, INBOX_KEYS, 'inbox');
  // A plain DynamoDBClient has send() too, but would be handed DocumentClient-style values it cannot marshal.
  if (!isRecord(raw.inbox.document) || typeof raw.inbox.document.send !== 'function' || raw.inbox.document instanceof DynamoDBClient) {
    throw new ConsumerOptionsError(
      'inbox.document',
      `got ${shapeOf(raw.inbox.document)}, which is not a DynamoDBDocumentClient; allowed: DynamoDBDocumentClient.from(new DynamoDBClient())`,
    );
  }
  if (typeof raw.inbox.tableName !== 'string' || raw.inbox.tableName === '') {
    throw new ConsumerOptionsError('inbox.tableName', `got ${show(raw.inbox.tableName)}; allowed: a table name`);
  }
  positiveInteger(raw.inbox.retentionSeconds, 'inbox.retentionSeconds');
  positiveInteger(raw.inbox.claimTimeoutSeconds, 'inbox.claimTimeoutSeconds');
  positiveInteger(raw.concurrency, 'concurrency');
  if (raw.inbox.legacyKeyCheck !== undefined && typeof raw.inbox.legacyKeyCheck !== 'boolean') {
    throw new ConsumerOptionsError('inbox.legacyKeyCheck', `got ${show(raw.inbox.legacyKeyCheck)}; allowed: true or false`);
  }
  if (raw.sequenceTracking !== undefined && typeof raw.sequenceTracking !== 'boolean') {
    throw new ConsumerOptionsError('sequenceTracking', `got ${show(raw.sequenceTracking)}; allowed: true or false`);
  }
  if (raw.commit !== undefined && raw.commit !== 'event' && raw.commit !== 'batch') {
    throw new ConsumerOptionsError('commit', `got ${show(raw.commit)}; allowed: "event" (each event in its own transaction) or "batch"`);
  }
  validateTracing(raw.tracing);
  validateCollaborators(raw);
}

/**
 * Checks an object the consumer calls into (its logger, its metrics sink): `required` methods must
 * be functions, `optional` ones functions when present.
 */
function callable(value: unknown, field: string, required: readonly string[], optional: readonly string[], allowed: string): void {
  if (value === undefined) return;
  if (typeof value !== 'object' || value === null) throw new ConsumerOptionsError(field, `got ${show(value)}; allowed: ${allowed}`);
  const methods = value as Record<string, unknown>;
  for (const name of [...required, ...optional]) {
    if (typeof methods[name] === 'function' || (methods[name] === undefined && optional.includes(name))) continue;
    throw new ConsumerOptionsError(`${field}.${name}`, `got ${show(methods[name])}; allowed: a function (${field}: ${allowed})`);
  }
}

/** Checks what the consumer calls for every message, which would otherwise fail each one on every delivery. */
function validateCollaborators(raw: Record<string, unknown>): void {
  callable(
    raw.logger,
    'logger',
    ['info', 'warn', 'error'],
    ['addContext'],
    'an object with info, warn and error functions, as Powertools Logger',
  );
  callable(
    raw.metrics,
    'metrics',
    ['addMetric'],
    ['addDimension', 'publishStoredMetrics'],
    'an object with an addMetric function, as Powertools Metrics',
  );
  if (raw.now !== undefined && typeof raw.now !== 'function') {
    throw new ConsumerOptionsError('now', `got ${show(raw.now)}; allowed: a function returning epoch milliseconds, such as Date.now`);
  }
}

function validateTracing(tracing: unknown): void {
  if (tracing === undefined) return;
  if (!isRecord(tracing)) throw new ConsumerOptionsError('tracing', `got ${show(tracing)}; allowed: an object { producer? }`);
  rejectUnknown(tracing, ['producer'], 'tracing');
  if (tracing.producer !== undefined && tracing.producer !== 'link' && tracing.producer !== 'parent') {
    throw new ConsumerOptionsError('tracing.producer', `got ${show(tracing.producer)}; allowed: "link" or "parent"`);
  }
}

/** Epoch seconds stay below this until the year 5138; epoch milliseconds have been above it since 1973. */
const EPOCH_SECONDS_LIMIT = 1e11;

/**
 * Checks the options of one `process` call, before any message of the batch is handled.
 * `claimExpiresAt` is epoch seconds: a value in milliseconds would otherwise make a claim left
 * by a crash hold until its record expires. Checked by magnitude, whatever the consumer's clock.
 */
export function validateProcessOptions(options: unknown): void {
  if (options === undefined) return;
  if (!isRecord(options)) throw new ConsumerOptionsError('process', `got ${show(options)}; allowed: an object { claimExpiresAt? }`);
  rejectUnknown(options, ['claimExpiresAt'], 'process');
  positiveInteger(options.claimExpiresAt, 'process.claimExpiresAt');
  if (typeof options.claimExpiresAt === 'number' && options.claimExpiresAt >= EPOCH_SECONDS_LIMIT) {
    throw new ConsumerOptionsError(
      'process.claimExpiresAt',
      `got ${options.claimExpiresAt}, which is epoch milliseconds; allowed: epoch seconds, e.g. Math.floor(Date.now() / 1000) + 30`,
    );
  }
}

/** The options `pollOnce` and `createPoller` share, checked under `where`. */
function checkPollFields(options: Record<string, unknown>, where: string): void {
  if (!isRecord(options.sqs) || typeof options.sqs.send !== 'function') {
    throw new ConsumerOptionsError(`${where}.sqs`, `got ${shapeOf(options.sqs)}; allowed: an SQSClient`);
  }
  if (typeof options.queueUrl !== 'string' || options.queueUrl === '') {
    throw new ConsumerOptionsError(`${where}.queueUrl`, `got ${show(options.queueUrl)}; allowed: a queue URL`);
  }
  if (!isRecord(options.consumer) || typeof options.consumer.process !== 'function') {
    throw new ConsumerOptionsError(`${where}.consumer`, `got ${shapeOf(options.consumer)}; allowed: a consumer from createConsumer`);
  }
  wholeNumberIn(options.maxMessages, `${where}.maxMessages`, 1, 10);
  wholeNumberIn(
    options.visibilityTimeoutSeconds,
    `${where}.visibilityTimeoutSeconds`,
    MIN_VISIBILITY_TIMEOUT_SECONDS,
    MAX_VISIBILITY_TIMEOUT_SECONDS,
    VISIBILITY_TIMEOUT_ALLOWED,
  );
  wholeNumberIn(options.retryDelaySeconds, `${where}.retryDelaySeconds`, 0, MAX_VISIBILITY_TIMEOUT_SECONDS);
}

/** Checks `pollOnce`'s options, before anything is received. */
export function validatePollOptions(options: unknown): void {
  if (!isRecord(options))
    throw new ConsumerOptionsError('pollOnce', `got ${show(options)}; allowed: an object { sqs, queueUrl, consumer, … }`);
  rejectUnknown(options, POLL_KEYS, 'pollOnce');
  checkPollFields(options, 'pollOnce');
  wholeNumberIn(options.waitTimeSeconds, 'pollOnce.waitTimeSeconds', 0, 20);
}

/** Checks `createPoller`'s options, before anything is received. */
export function validatePollerOptions(options: unknown): void {
  const where = 'createPoller';
  if (!isRecord(options)) throw new ConsumerOptionsError(where, `got ${show(options)}; allowed: an object { sqs, queueUrl, consumer, … }`);
  rejectUnknown(options, [...POLL_KEYS, ...POLLER_KEYS], where);
  checkPollFields(options, where);
  // Short polls in a loop would call SQS without pause while the queue is empty.
  wholeNumberIn(options.waitTimeSeconds, `${where}.waitTimeSeconds`, 1, 20);
  positiveInteger(options.concurrency, `${where}.concurrency`);
  for (const callback of ['onBatch', 'onError']) {
    if (options[callback] !== undefined && typeof options[callback] !== 'function') {
      throw new ConsumerOptionsError(`${where}.${callback}`, `got ${show(options[callback])}; allowed: a function`);
    }
  }
  const { backoff } = options;
  if (backoff === undefined) return;
  if (!isRecord(backoff))
    throw new ConsumerOptionsError(`${where}.backoff`, `got ${show(backoff)}; allowed: an object { baseDelayMs?, maxDelayMs? }`);
  rejectUnknown(backoff, BACKOFF_KEYS, `${where}.backoff`);
  positiveInteger(backoff.baseDelayMs, `${where}.backoff.baseDelayMs`);
  positiveInteger(backoff.maxDelayMs, `${where}.backoff.maxDelayMs`);
  const base = backoff.baseDelayMs ?? DEFAULT_POLLER_BACKOFF.baseDelayMs;
  const max = backoff.maxDelayMs ?? DEFAULT_POLLER_BACKOFF.maxDelayMs;
  if ((max as number) < (base as number)) {
    throw new ConsumerOptionsError(
      `${where}.backoff.maxDelayMs`,
      `got ${max}, below baseDelayMs (${base}); allowed: a whole number of ms ≥ baseDelayMs`,
    );
  }
}

/** Checks `stop`'s options: how long it waits for the batches in flight. */
export function validateStopOptions(options: unknown): void {
  if (options === undefined) return;
  if (!isRecord(options)) throw new ConsumerOptionsError('stop', `got ${show(options)}; allowed: an object { timeoutMs? }`);
  rejectUnknown(options, ['timeoutMs'], 'stop');
  positiveInteger(options.timeoutMs, 'stop.timeoutMs');
}

/**
 * Declares a handler whose event `data` type is inferred from its Standard Schema.
 *
 * @example
 * ```ts
 * const orderPlaced = eventHandler({
 *   schema: z.object({ orderId: z.string(), total: z.number() }),
 *   handle: async (event, ctx) => ctx.write({ Put: { TableName, Item: { pk: `ORDER#${event.data.orderId}`, sk: 'VIEW' } } }),
 * });
 * ```
 */
export function eventHandler<S extends StandardSchemaV1>(
  handler: Omit<TransactionHandler<StandardSchemaV1.InferOutput<S>>, 'schema'> & { readonly schema: S },
): TransactionHandler<StandardSchemaV1.InferOutput<S>>;
export function eventHandler<S extends StandardSchemaV1>(
  handler: Omit<ClaimHandler<StandardSchemaV1.InferOutput<S>>, 'schema'> & { readonly schema: S },
): ClaimHandler<StandardSchemaV1.InferOutput<S>>;
export function eventHandler<TData = unknown>(handler: EventHandler<TData>): EventHandler<TData>;
export function eventHandler(handler: EventHandler): EventHandler {
  return handler;
}
