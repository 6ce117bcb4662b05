/**
 * Marshalling and sizing of the caller's business operations before sending (and marshalling of the
 * helper's own actions as they are sent), which is also
 * where a value the DocumentClient cannot marshal is caught and named by its path.
 */

import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall, type marshallOptions } from '@aws-sdk/util-dynamodb';
import { WriteValidationError } from '../errors.js';
import { itemSize } from '../item-size.js';
import { checkAttributeValues, memberKind, VALUE_FIELDS } from './attribute-values.js';
import { KINDS, MAX_ITEM_BYTES, type TransactOperation } from './input.js';

/** One of the caller's operations as the DocumentClient will send it, and its size. */
export interface MarshalledOperation {
  /** `Put`, `Update`, `Delete` or `ConditionCheck`, with its attribute values as DynamoDB JSON. */
  readonly marshalled: Record<string, Record<string, unknown>>;
  /** {@link marshalled} as it is sent: without the fields the DocumentClient drops (functions). */
  readonly wire: Record<string, Record<string, unknown>>;
  /** What it adds to the transaction's size: its expressions and attribute values. */
  readonly size: number;
}

/**
 * The operation with its attribute values marshalled as the DocumentClient will send them (each
 * top-level value on its own, functions and `undefined` left out, with the client's own
 * options), and its size, so a value it cannot marshal and a `Put` item over DynamoDB's item
 * limit are refused here, before anything is sent.
 */
export function marshalOperation(operation: TransactOperation, index: number, options: marshallOptions): MarshalledOperation {
  // First, in one linear pass: marshalling recurses, and a value too deep would overflow the stack.
  checkAttributeValues(operation, index, options);
  const [kind, body] = Object.entries(operation)[0] as [string, Record<string, unknown>];
  const sending = sendingOptions(options);
  const marshalled: Record<string, unknown> = { ...body };
  let size = expressionBytes(body.UpdateExpression) + expressionBytes(body.ConditionExpression);
  for (const field of VALUE_FIELDS) {
    const values = body[field];
    if (typeof values !== 'object' || values === null) continue;
    const attributes = marshalValues(values as Record<string, unknown>, sending, (name, value, error) => {
      const culprit = unmarshallable(value, `operations[${index}].${kind}.${field}.${name}`, sending);
      return new WriteValidationError(
        'INVALID_OPERATION',
        `${culprit.path} is ${describe(culprit.value)}, which the DynamoDB DocumentClient cannot marshal (${marshallerReason(error)}); allowed: strings, numbers (NumberValue beyond 2^53), booleans, null, binary, non-empty Sets of one type (strings, numbers or binary), arrays and plain objects — convert a Date to an ISO string or epoch number first`,
        { cause: error },
      );
    });
    const fieldSize = itemSize(attributes);
    if (kind === 'Put' && field === 'Item' && fieldSize > MAX_ITEM_BYTES) {
      throw new WriteValidationError(
        'ITEM_TOO_LARGE',
        `operations[${index}].Put.Item is ${fieldSize} bytes; allowed: at most ${MAX_ITEM_BYTES} bytes (the DynamoDB item limit, attribute names included) — store large values elsewhere, e.g. in S3, and keep a reference`,
      );
    }
    size += fieldSize;
    marshalled[field] = attributes;
  }
  return { marshalled: { [kind]: marshalled }, wire: { [kind]: withoutFunctions(marshalled) }, size };
}

const expressionBytes = (expression: unknown): number => (typeof expression === 'string' ? Buffer.byteLength(expression) : 0);

/**
 * What one of the helper's own actions adds to a transaction's size besides its `Item`, as DynamoDB
 * counts a transaction against its 4 MB limit: its expressions, its `Key` and its
 * `ExpressionAttributeValues` with their placeholders (DynamoDB does not count `ExpressionAttributeNames`).
 */
export function actionExtraBytes(action: TransactOperation): number {
  const body = Object.values(action)[0] as Record<string, unknown>;
  let size = expressionBytes(body.UpdateExpression) + expressionBytes(body.ConditionExpression);
  for (const field of ['Key', 'ExpressionAttributeValues'] as const) {
    const values = body[field];
    if (typeof values === 'object' && values !== null)
      size += itemSize(marshalValues(values as Record<string, unknown>, sendingOptions({})));
  }
  return size;
}

/** `fields` without those holding functions, which the DocumentClient drops; `fields` itself when it holds none. */
function withoutFunctions(fields: Record<string, unknown>): Record<string, unknown> {
  for (const field in fields) {
    if (typeof fields[field] === 'function') {
      return Object.fromEntries(Object.entries(fields).filter(([, value]) => typeof value !== 'function'));
    }
  }
  return fields;
}

/**
 * Each top-level value of an `Item`, `Key` or `ExpressionAttributeValues` marshalled on its own with
 * `options`, functions and `undefined` left out, as the DocumentClient sends them; a value that
 * cannot be marshalled throws what `refuse` makes of it, else the marshaller's own error.
 */
function marshalValues(
  values: Record<string, unknown>,
  options: marshallOptions,
  refuse?: (name: string, value: unknown, error: unknown) => Error,
): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {};
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined || typeof value === 'function') continue;
    try {
      attributes[name] = marshall(value, options) as AttributeValue;
    } catch (error) {
      throw refuse === undefined ? error : refuse(name, value, error);
    }
  }
  return attributes;
}

/** The options the DocumentClient marshals each top-level value with: the client's, each value as a whole. */
export const sendingOptions = (options: marshallOptions): marshallOptions =>
  options.convertTopLevelContainer === undefined ? { ...options, convertTopLevelContainer: true } : options;

/**
 * One of the helper's own actions (a slot write, an idempotency record) with its attribute values
 * marshalled as the DocumentClient would send them with `options` ({@link sendingOptions}): each
 * top-level value on its own, functions and `undefined` left out.
 */
export function marshalAction(action: TransactOperation, options: marshallOptions): Record<string, Record<string, unknown>> {
  const [kind, body] = Object.entries(action)[0] as [string, Record<string, unknown>];
  const sent: Record<string, unknown> = { ...body };
  for (const field of VALUE_FIELDS) {
    const values = body[field] as Record<string, unknown> | undefined;
    if (values === undefined) continue;
    sent[field] = marshalValues(values, options);
  }
  return { [kind]: sent };
}

const ACTION_KINDS: ReadonlySet<string> = new Set(KINDS);

/**
 * The request to serialize for `input` as the client's middleware passes it on: a value field
 * still holding what was planned goes as marshalled then (`wire`); one that middleware replaced
 * is marshalled now, and every other field goes as middleware left it, as the DocumentClient
 * marshals whatever input reaches its serializer.
 */
export function sentInput(
  input: Record<string, unknown>,
  planned: { readonly TransactItems: readonly Record<string, unknown>[] },
  wire: { readonly TransactItems: readonly Record<string, unknown>[] },
  options: marshallOptions,
): Record<string, unknown> {
  const sent: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(input)) if (typeof value !== 'function') sent[field] = value;
  if (!Array.isArray(input.TransactItems)) return sent;
  sent.TransactItems = (input.TransactItems as Record<string, unknown>[]).map((item, index) => {
    const out: Record<string, unknown> = {};
    for (const [kind, body] of Object.entries(item)) {
      if (typeof body === 'function') continue;
      if (!ACTION_KINDS.has(kind) || typeof body !== 'object' || body === null) {
        out[kind] = body;
        continue;
      }
      const before = planned.TransactItems[index]?.[kind] as Record<string, unknown> | undefined;
      const after = wire.TransactItems[index]?.[kind] as Record<string, unknown> | undefined;
      const fields: Record<string, unknown> = {};
      for (const [field, value] of Object.entries(body)) {
        if (typeof value === 'function') continue;
        const valueField = (VALUE_FIELDS as readonly string[]).includes(field) && typeof value === 'object' && value !== null;
        if (!valueField) fields[field] = value;
        else if (before !== undefined && after?.[field] !== undefined && before[field] === value) fields[field] = after[field];
        else fields[field] = marshalAction({ [kind]: { [field]: value } } as TransactOperation, options)[kind]?.[field];
      }
      out[kind] = fields;
    }
    return out;
  });
  return sent;
}

/**
 * The innermost part of `value` (known not to marshal) that does not marshal, with its path.
 * Each level marshals its members again: at most 32 times the value's size, as values were
 * checked to nest at most 32 levels.
 */
function unmarshallable(value: unknown, path: string, options: marshallOptions): { path: string; value: unknown } {
  if (typeof value !== 'object' || value === null) return { path, value };
  const prototype = Object.getPrototypeOf(value);
  const children = Array.isArray(value)
    ? value.map((child, i) => [`${path}[${i}]`, child] as const)
    : prototype === Object.prototype || prototype === null
      ? Object.entries(value).map(([key, child]) => [`${path}.${key}`, child] as const)
      : [];
  for (const [childPath, child] of children) {
    if (typeof child === 'function') continue;
    try {
      marshall({ child }, options);
    } catch {
      return unmarshallable(child, childPath, options);
    }
  }
  return { path, value };
}

/** The marshaller's own words for why it refused, shortened to fit a message. */
function marshallerReason(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * What a value the marshaller refused is, for the message. A Set gets here only past
 * {@link checkAttributeValues}, which refuses one of members of two kinds and an empty one (or turns it into NULL): its
 * members other than `undefined` are of one kind.
 */
function describe(value: unknown): string {
  if (value instanceof Date) return 'a Date';
  if (value instanceof Set) {
    const members = [...value];
    const first = members.find((member) => member !== undefined);
    const set = first === undefined ? 'a Set' : `a Set of ${memberKind(first)}`;
    return members.includes(undefined) ? `${set} holding undefined` : set;
  }
  if (typeof value === 'object' && value !== null) return `a ${value.constructor?.name ?? 'prototype-less'} instance`;
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 40));
  return typeof value === 'number' || typeof value === 'bigint' ? `the number ${value}` : String(value);
}
