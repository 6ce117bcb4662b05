/**
 * What the SDK's attempts of one request say about whether DynamoDB applied it. The SDK retries
 * network errors, timeouts, 5xx answers and throttling under the same request, and its final
 * error names only the last attempt: a throttled last attempt says nothing of a first one whose
 * answer was lost. So the helper watches each attempt as it leaves for DynamoDB.
 */

import type {
  TransactWriteItemsCommand,
  TransactWriteItemsCommandInput,
  TransactWriteItemsCommandOutput,
  TransactWriteItemsInput,
} from '@aws-sdk/client-dynamodb';
import type { marshallOptions } from '@aws-sdk/util-dynamodb';
import type { SerializeMiddleware } from '@smithy/types';
import { errorName } from '../aws/error-name.js';
import { logAsIs } from '../aws/unfiltered-log.js';
import { sentInput } from './operation-size.js';

/** DynamoDB's refusals (HTTP 400): the request was not applied. */
const REFUSALS = new Set([
  'AccessDeniedException',
  'ConditionalCheckFailedException',
  'IdempotentParameterMismatchException',
  'IncompleteSignatureException',
  'InvalidEndpointException',
  'InvalidSignatureException',
  'LimitExceededException',
  'MissingAuthenticationTokenException',
  'ProvisionedThroughputExceededException',
  'ReplicatedWriteConflictException',
  'RequestLimitExceeded',
  'ResourceNotFoundException',
  'SerializationException',
  'ThrottlingException',
  'TransactionCanceledException',
  'TransactionConflictException',
  'TransactionInProgressException',
  'UnknownOperationException',
  'UnrecognizedClientException',
  'ValidationException',
  'ExpiredTokenException',
]);
/** Failures of the client before a request leaves: nothing was sent. */
const NOT_SENT = new Set(['CredentialsProviderError', 'TokenProviderError']);

/** Marks an attempt DynamoDB answered with success, in {@link AttemptWatch.unanswered}. */
const SUCCEEDED: unique symbol = Symbol('succeeded');

interface ErrorShape {
  readonly code?: unknown;
  readonly message?: unknown;
  readonly $fault?: unknown;
  readonly $metadata?: { readonly httpStatusCode?: unknown; readonly attempts?: unknown };
}

const shape = (error: unknown): ErrorShape => (typeof error === 'object' && error !== null ? (error as ErrorShape) : {});

/**
 * Whether the error is an answer of DynamoDB that says the request was not applied: an HTTP 4xx
 * (a refusal, throttling, a cancelled transaction), or a failure of the client before sending.
 * Anything else (a network error, a timeout, an aborted request, an HTTP 5xx, an error of unknown
 * shape) leaves open whether the request reached DynamoDB and was applied.
 */
export function notApplied(error: unknown): boolean {
  const { $fault, $metadata } = shape(error);
  const name = errorName(error);
  if (REFUSALS.has(name) || NOT_SENT.has(name)) return true;
  const status = $metadata?.httpStatusCode;
  if (typeof status === 'number') return status >= 400 && status < 500;
  return $fault === 'client';
}

/** Whether DynamoDB answered at all (with an HTTP status, or a refusal by name), as against the request never leaving. */
export function answered(error: unknown): boolean {
  return typeof shape(error).$metadata?.httpStatusCode === 'number' || REFUSALS.has(errorName(error));
}

/** `ECONNRESET (socket hang up; 3 SDK attempts)`, `InternalServerError, HTTP 500 (…)`: what an error says, for a message. */
export function describeError(error: unknown): string {
  const { code, message, $metadata } = shape(error);
  const name = errorName(error);
  const label = typeof code === 'string' && name === 'Error' ? code : name;
  const status =
    typeof $metadata?.httpStatusCode === 'number' && $metadata.httpStatusCode >= 500 ? `, HTTP ${$metadata.httpStatusCode}` : '';
  const sdkAttempts = typeof $metadata?.attempts === 'number' && $metadata.attempts > 1 ? `; ${$metadata.attempts} SDK attempts` : '';
  const text = typeof message === 'string' && message !== '' ? message : String(error);
  return `${label}${status} (${text}${sdkAttempts})`;
}

/** What the attempts of one request showed. */
export interface AttemptWatch {
  /** The request went through the SDK's middleware: `unanswered` is then complete. */
  readonly observed: boolean;
  /** Attempts that may have been applied: answered with success (then lost), or with no answer that says. */
  readonly unanswered: unknown[];
}

/**
 * Watches each attempt of `command` as the SDK sends it: inside the SDK's retry loop, around the
 * transport. An attempt that fails there with no answer that says it was not applied, or that
 * succeeds although the request then fails, is noted in `unanswered`. A client whose `send` does
 * not run the middleware (a test double) leaves `observed` false.
 *
 * The command's `input` is the request as a DocumentClient command holds it (native values), and
 * `wire` the same request with its attribute values already marshalled: it takes the input's place
 * just before the serializer, where a DocumentClient command marshals its input, so middleware
 * that reads the input sees what it saw of a DocumentClient command. What middleware changed in
 * the input is sent as changed ({@link sentInput}), values marshalled with `options`. The client's
 * logger gets the request and its answer as they are ({@link logAsIs}).
 */
export function watchAttempts(command: TransactWriteItemsCommand, wire: TransactWriteItemsInput, options: marshallOptions): AttemptWatch {
  const watch = { observed: false, unanswered: [] as unknown[] };
  const planned = plannedFields(command.input.TransactItems ?? []);
  // The client's logger gets the request and answer as they are (see unfiltered-log.ts).
  logAsIs(command);
  // Middleware passed inline: each is a closure over this request's state, and nothing more.
  command.middlewareStack.add(
    (next) => (args) => {
      watch.observed = true;
      return next(args);
    },
    { step: 'initialize' },
  );
  command.middlewareStack.addRelativeTo(
    ((next) => (args) => {
      const input = asPlanned(args.input, planned, wire)
        ? wire
        : (sentInput(args.input as never, planned, wire as never, options) as unknown as TransactWriteItemsInput);
      return next({ ...args, input });
    }) as SerializeMiddleware<TransactWriteItemsCommandInput, TransactWriteItemsCommandOutput>,
    { relation: 'before', toMiddleware: 'serializerMiddleware', name: 'outboxMarshalledInput' },
  );
  command.middlewareStack.add(
    (next) => async (args) => {
      try {
        const output = await next(args);
        watch.unanswered.push(SUCCEEDED);
        return output;
      } catch (error) {
        // An attempt is known by its error: one that passes twice is noted once.
        if (!notApplied(error) && !watch.unanswered.includes(error)) watch.unanswered.push(error);
        throw error;
      }
    },
    { step: 'deserialize', priority: 'high' },
  );
  return watch;
}

/** The planned request's actions, each one's fields copied by reference: middleware may replace one in the input itself. */
interface Planned {
  readonly TransactItems: readonly Record<string, Record<string, unknown>>[];
}

function plannedFields(items: readonly object[]): Planned {
  const copies: Record<string, Record<string, unknown>>[] = new Array(items.length);
  for (let index = 0; index < items.length; index++) {
    const item = items[index] as Record<string, Record<string, unknown>>;
    const copy: Record<string, Record<string, unknown>> = {};
    for (const kind in item) if (Object.hasOwn(item, kind)) copy[kind] = { ...item[kind] };
    copies[index] = copy;
  }
  return { TransactItems: copies };
}

/**
 * Whether `input` holds exactly what was planned, field by field (no middleware changed, added or
 * removed one): `wire` is then what {@link sentInput} would build, and is sent as it is, with no copy.
 */
function asPlanned(input: TransactWriteItemsInput, planned: Planned, wire: TransactWriteItemsInput): boolean {
  if (input.ClientRequestToken !== wire.ClientRequestToken || Object.keys(input).length !== 2) return false;
  const items = input.TransactItems as readonly Record<string, unknown>[] | undefined;
  if (!Array.isArray(items) || items.length !== planned.TransactItems.length) return false;
  return items.every((item, index) => sameFields(item, planned.TransactItems[index] as Record<string, unknown>, 2));
}

/** Whether `a` and `b` have the same fields with the very same values, `depth` levels down (an item, then its action). */
function sameFields(a: unknown, b: Record<string, unknown>, depth: number): boolean {
  if (typeof a !== 'object' || a === null) return false;
  const fields = Object.keys(a);
  if (fields.length !== Object.keys(b).length) return false;
  return fields.every((field) => {
    if (!Object.hasOwn(b, field)) return false;
    const value = (a as Record<string, unknown>)[field];
    return depth > 1 ? sameFields(value, b[field] as Record<string, unknown>, depth - 1) : value === b[field];
  });
}

/**
 * What the attempt that may have been applied got, for a message; `undefined` when every attempt
 * was refused (or none was sent), so the request was not applied. Without a watch (a client that
 * does not run the middleware) the final error alone decides.
 */
export function lostAttempt(watch: AttemptWatch, error: unknown): string | undefined {
  const unanswered = watch.observed ? watch.unanswered : notApplied(error) ? [] : [error];
  const [first] = unanswered;
  if (first === undefined) return undefined;
  return first === SUCCEEDED ? `an attempt DynamoDB answered whose answer was then lost: ${describeError(error)}` : describeError(first);
}
