import type { StandardSchemaV1 } from '@standard-schema/spec';
import { DYNAMODB_TABLE_NAME_PATTERN, DYNAMODB_TABLE_NAME_RULE } from '../aws/dynamodb-table-name.js';
import { sendClientFault } from '../aws/send-client.js';
import { snsTopicArnProblem } from '../aws/sns-topic-arn.js';
import { methodsFault } from '../methods-fault.js';
import { showValue as show } from '../show-value.js';
import { validateCatalogOption } from './catalog-schemas.js';
import { ConsumerOptionsError } from './errors.js';
import { CONSUMER_LIMITS } from './limits.js';
import { isRecord, positiveInteger, rejectUnknown, shapeOf } from './option-checks.js';
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
  const documentFault = sendClientFault(raw.inbox.document);
  if (documentFault !== undefined) {
    throw new ConsumerOptionsError('inbox.document', `got ${documentFault}; allowed: a DynamoDBClient or a DynamoDBDocumentClient`);
  }
  // The SDK's DocumentClient refuses such a client with a plain Error, as it wraps it.
  if ((raw.inbox.document as { config?: { cacheMiddleware?: unknown } }).config?.cacheMiddleware === true) {
    throw new ConsumerOptionsError(
      'inbox.document',
      'got a client with cacheMiddleware: true, which the DynamoDB DocumentClient cannot take; allowed: a client whose cacheMiddleware is false or unset',
    );
  }
  // Else every message would fail at its first inbox write, be retried and reach the DLQ.
  if (typeof raw.inbox.tableName !== 'string' || !DYNAMODB_TABLE_NAME_PATTERN.test(raw.inbox.tableName)) {
    throw new ConsumerOptionsError(
      'inbox.tableName',
      `got ${show(raw.inbox.tableName)}; allowed: the inbox table's name ${DYNAMODB_TABLE_NAME_RULE}`,
    );
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
 * be functions, `optional` ones functions when present. The message is {@link methodsFault}'s, naming
 * every method at fault; the field names the first (`logger.error`), or the object when it is none.
 */
function callable(value: unknown, field: string, required: readonly string[], optional: readonly string[], allowed: string): void {
  if (value === undefined) return;
  const given = methodsFault(value, required, optional);
  if (given === undefined) return;
  const faulty = (name: string): boolean =>
    required.includes(name) ? methodsFault(value, [name]) !== undefined : methodsFault(value, [], [name]) !== undefined;
  const first = typeof value === 'object' && value !== null ? [...required, ...optional].find(faulty) : undefined;
  throw new ConsumerOptionsError(first === undefined ? field : `${field}.${first}`, `got ${given}; allowed: ${allowed}`);
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
    throw new ConsumerOptionsError('now', `got ${show(raw.now)}; allowed: a function returning epoch ms, or leave it out for Date.now`);
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
