/**
 * What DynamoDB refuses, or would store other than given, in the attribute values and names of a
 * caller's operation, found in one linear pass before anything is marshalled or sent: values
 * nested deeper than DynamoDB allows (or cyclic), Sets the DocumentClient would send as a wrong
 * or invalid set, attribute names DynamoDB refuses, strings with no UTF-8 form, and binary the
 * DocumentClient would not send as its bytes (binary-values.ts).
 */

import { type marshallOptions, NumberValueImpl as NumberValue } from '@aws-sdk/util-dynamodb';
import { WriteValidationError } from '../errors.js';
import { showValue } from '../show-value.js';
import { binaryMemberProblem, binaryProblem, constructorName, isBinary } from './binary-values.js';
import { bytesText } from './key-text.js';
import { type Inspection, nameSegment, pathOf, tooDeepMessage, walkNested } from './nesting.js';
import { canonicalNumber, isNumeric, numericProblem } from './numbers.js';
import type { TransactOperation } from './types.js';

/** DynamoDB's attribute names are at least one character and less than 64 KB. */
export const MAX_ATTRIBUTE_NAME_BYTES = 65_535;

export { binaryProblem, isBinary } from './binary-values.js';

/** Objects the DocumentClient marshals as one scalar, never as a map. */
const SCALAR_WRAPPERS = new Set(['Boolean', 'Number', 'String']);

/**
 * The primitive a `Number` or `String` object holds, which the DocumentClient sends as that
 * primitive would go (`N` or `S`, telling such objects by their constructor's name); any other
 * value as it is.
 */
export function scalarValue(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const name = constructorName(value);
  try {
    if (name === 'Number') return Number.prototype.valueOf.call(value);
    if (name === 'String') return String.prototype.valueOf.call(value);
  } catch {
    // Named so, yet no Number or String object: the DocumentClient's to send as it does, or refuse.
  }
  return value;
}

const NOT_WELL_FORMED = 'not well-formed Unicode: it holds a lone surrogate, which DynamoDB, storing strings as UTF-8, cannot keep';
const WELL_FORMED_ALLOWED = 'well-formed Unicode text (String.prototype.toWellFormed() replaces lone surrogates with U+FFFD)';

/**
 * Why `name` cannot be an attribute name, as what the name is (`empty`, say), with what is
 * allowed; else `undefined`.
 */
export function attributeNameProblem(name: string): { readonly is: string; readonly allowed: string } | undefined {
  if (name === '') return { is: 'empty', allowed: 'names of at least one character' };
  if (!name.isWellFormed()) {
    // Two such names would be one attribute: each lone surrogate becomes the same replacement.
    return { is: `${JSON.stringify(name.slice(0, 40))}, ${NOT_WELL_FORMED}`, allowed: `names of ${WELL_FORMED_ALLOWED}` };
  }
  // A UTF-16 unit takes at most 3 UTF-8 bytes: a short name needs no count.
  const bytes = name.length * 3 <= MAX_ATTRIBUTE_NAME_BYTES ? 0 : Buffer.byteLength(name);
  if (bytes > MAX_ATTRIBUTE_NAME_BYTES) {
    return {
      is: `${bytes} bytes long (${JSON.stringify(name.slice(0, 40))}…)`,
      allowed: `names of less than 64 KB (at most ${MAX_ATTRIBUTE_NAME_BYTES} bytes)`,
    };
  }
  return undefined;
}

/** What is wrong with a map holding a bad attribute name, as a predicate of its path. */
const badName = (problem: { is: string; allowed: string }): string =>
  `has an attribute name that is ${problem.is}; allowed: ${problem.allowed}`;

/** What kind of set member a value makes, as the DocumentClient reads it, in the plural: `number`, `bigint` and `NumberValue` are all numbers. */
export function memberKind(given: unknown): string {
  // A Number or String object is a member of the primitive's kind, as the DocumentClient sends it.
  const member = scalarValue(given);
  if (typeof member === 'string') return 'strings';
  if (isNumeric(member)) return 'numbers';
  if (isBinary(member)) return 'binary values';
  if (member === null) return 'nulls';
  return typeof member === 'object' ? `${constructorName(member) ?? 'prototype-less'} objects` : `${typeof member}s`;
}

const SET_ALLOWED =
  'allowed: a non-empty Set of only strings, only numbers (number, bigint or NumberValue) or only binary values, each once';

/**
 * Why the DocumentClient would send `set` as something DynamoDB refuses or stores otherwise:
 * `new Set(['a', 1])` would become the string set `["a", "1"]`, `new Set([1, 1n])` a number set
 * with a duplicate.
 */
function setProblem(set: readonly unknown[], options: marshallOptions): string | undefined {
  // `undefined` members are the DocumentClient's to drop (removeUndefinedValues) or refuse.
  const members = set.filter((member) => member !== undefined).map(scalarValue);
  if (members.length === 0)
    return options.convertEmptyValues === true
      ? undefined
      : `is an empty Set (DynamoDB has no empty sets); ${SET_ALLOWED}, or leave the attribute out`;
  const kinds = [...new Set(members.map(memberKind))];
  const [kind] = kinds;
  if (kinds.length > 1) {
    // The DocumentClient types a set by its first member and converts the others to that type.
    return `is a Set of mixed types (${kinds.join(', ')}), which the DocumentClient would send as a set of its first member's type, converting the others or failing; ${SET_ALLOWED}`;
  }
  if (kind !== 'strings' && kind !== 'numbers' && kind !== 'binary values') return `is a Set of ${kind}; ${SET_ALLOWED}`;
  const binary = binaryMemberProblem(members);
  if (binary !== undefined) return binary;
  if (kind === 'strings') {
    const bad = members.find((member) => !(member as string).isWellFormed());
    return bad === undefined
      ? undefined
      : `holds the string ${JSON.stringify((bad as string).slice(0, 40))}, which is ${NOT_WELL_FORMED}; allowed: ${WELL_FORMED_ALLOWED}`;
  }
  const seen = new Map<string, unknown>();
  for (const member of members) {
    const numeric = kind === 'numbers' ? numericProblem(member as number | bigint | NumberValue) : undefined;
    if (numeric !== undefined) return `holds ${numeric}`;
    const key = kind === 'numbers' ? canonicalNumber(String(member)) : bytesText(member);
    if (key === undefined) continue;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      const shown = (value: unknown) => (typeof value === 'bigint' ? `${value}n` : String(value));
      const twice = kind === 'numbers' ? `the same number twice (${shown(earlier)} and ${shown(member)})` : 'the same bytes twice';
      return `holds ${twice}, which DynamoDB refuses in a set; ${SET_ALLOWED}`;
    }
    seen.set(key, member);
  }
  return undefined;
}

/** The members of a map, checking each name; a problem for the first bad name. */
function mapMembers(entries: Iterable<readonly [unknown, unknown]>): Inspection {
  const members: [string, unknown][] = [];
  for (const [name, value] of entries) {
    if (typeof name !== 'string') {
      return { problem: `is a Map with a ${typeof name} key (${String(name)}); allowed: string keys, which are the attribute names` };
    }
    const problem = attributeNameProblem(name);
    if (problem !== undefined) return { problem: badName(problem) };
    if (typeof value !== 'function') members.push([nameSegment(name), value]);
  }
  return { members };
}

/** How the DocumentClient will marshal `value`, as far as DynamoDB's limits care: see `convertToAttr`. */
function inspectAttribute(options: marshallOptions): (value: unknown) => Inspection {
  return (given) => {
    // A Number or String object goes as the primitive it holds, and is checked as that primitive.
    const value = scalarValue(given);
    if (typeof value === 'string') {
      return value.isWellFormed() ? undefined : { problem: `is a string that is ${NOT_WELL_FORMED}; allowed: ${WELL_FORMED_ALLOWED}` };
    }
    if (isNumeric(value)) {
      const problem = numericProblem(value);
      return problem === undefined ? undefined : { problem: `is ${problem}` };
    }
    if (typeof value !== 'object' || value === null) return undefined;
    if (Array.isArray(value)) {
      return { members: value.flatMap((member, i) => (typeof member === 'function' ? [] : [[`[${i}]`, member] as const])) };
    }
    const binary = binaryProblem(value);
    if (binary !== undefined) return { problem: binary };
    const name = constructorName(value);
    if (name === 'Set') {
      const members = [...(value as Set<unknown>)];
      const problem = setProblem(members, options);
      return problem === undefined ? undefined : { problem };
    }
    if (name === 'Map') return mapMembers(value as Map<unknown, unknown>);
    const plain = name === 'Object' || (value as { constructor?: unknown }).constructor === undefined;
    const scalar = isBinary(value) || value instanceof NumberValue || SCALAR_WRAPPERS.has(name ?? '');
    if (plain || (!scalar && options.convertClassInstanceToMap === true)) {
      const entries: [string, unknown][] = [];
      // for…in, as the DocumentClient reads an object: inherited enumerable properties count.
      for (const key in value) entries.push([key, (value as Record<string, unknown>)[key]]);
      return mapMembers(entries);
    }
    // Anything else (a Date, say) is the DocumentClient's to refuse: marshalling names it.
    return undefined;
  };
}

/** Checks one attribute value, at `path`; throws a {@link WriteValidationError} for the first problem. */
function checkValue(value: unknown, path: string, inspect: (value: unknown) => Inspection): void {
  const found = walkNested(value, path, inspect);
  if (found === undefined) return;
  if (found.kind === 'too-deep') throw new WriteValidationError('NESTED_TOO_DEEP', tooDeepMessage(path, found.step, 'maps or lists'));
  const message =
    found.kind === 'cycle'
      ? `${pathOf(found.step)} refers back to one of its parents (a cycle); allowed: a value without cycles`
      : `${pathOf(found.step)} ${found.problem}`;
  throw new WriteValidationError('INVALID_OPERATION', message);
}

/** The fields of an action that hold attribute values, checked here and marshalled by `operation-size.ts`. */
export const VALUE_FIELDS = ['Item', 'Key', 'ExpressionAttributeValues'] as const;

const fieldPath = (index: number, kind: string, field: string, list = 'operations'): string => `${list}[${index}].${kind}.${field}`;

/**
 * Checks the attribute names and values of one of the caller's operations (`Item`, `Key`,
 * `ExpressionAttributeValues`, and the names `ExpressionAttributeNames` stands for), in time
 * linear in what it reads, and before any is marshalled: throws a {@link WriteValidationError}
 * naming the first problem by its path, `${list}[${index}]…` (the write helper's `operations`; a
 * consumer's handler writes are its `writes`).
 */
export function checkAttributeValues(operation: TransactOperation, index: number, options: marshallOptions, list = 'operations'): void {
  const [kind, body] = Object.entries(operation)[0] as [string, Record<string, unknown>];
  const placeholders = body.ExpressionAttributeValues;
  if (placeholders !== undefined && (typeof placeholders !== 'object' || placeholders === null || Array.isArray(placeholders))) {
    // The DocumentClient would fail on null (nothing sent) and turn a string or an array into a map by index.
    const shown = Array.isArray(placeholders) ? 'an array' : showValue(placeholders);
    throw new WriteValidationError(
      'INVALID_OPERATION',
      `${fieldPath(index, kind, 'ExpressionAttributeValues', list)} is ${shown}; allowed: an object of attribute values by placeholder (":v"), or leave it out`,
    );
  }
  let inspect: ((value: unknown) => Inspection) | undefined;
  for (const field of VALUE_FIELDS) {
    const values = body[field];
    if (typeof values !== 'object' || values === null) continue;
    for (const [name, value] of Object.entries(values)) {
      // Left out when marshalled, as the DocumentClient leaves them out.
      if (value === undefined || typeof value === 'function') continue;
      // ExpressionAttributeValues are named by placeholders (`:v`), not attribute names.
      const problem = field === 'ExpressionAttributeValues' ? undefined : attributeNameProblem(name);
      if (problem !== undefined)
        throw new WriteValidationError('INVALID_OPERATION', `${fieldPath(index, kind, field, list)} ${badName(problem)}`);
      if (typeof value === 'number' || typeof value === 'bigint') {
        const problem = numericProblem(value);
        if (problem === undefined) continue;
        throw new WriteValidationError('INVALID_OPERATION', `${fieldPath(index, kind, field, list)}${nameSegment(name)} is ${problem}`);
      }
      // A boolean, null or well-formed text has nothing to walk: most values of most items.
      if (typeof value !== 'object' && (typeof value !== 'string' || value.isWellFormed())) continue;
      inspect ??= inspectAttribute(options);
      checkValue(value, `${fieldPath(index, kind, field, list)}${nameSegment(name)}`, inspect);
    }
  }
  const names = body.ExpressionAttributeNames;
  if (typeof names !== 'object' || names === null) return;
  for (const [placeholder, name] of Object.entries(names)) {
    const path = `${fieldPath(index, kind, 'ExpressionAttributeNames', list)}${nameSegment(placeholder)}`;
    if (typeof name !== 'string') {
      throw new WriteValidationError('INVALID_OPERATION', `${path} is ${showValue(name)}; allowed: an attribute name (a string)`);
    }
    const problem = attributeNameProblem(name);
    if (problem !== undefined) {
      throw new WriteValidationError(
        'INVALID_OPERATION',
        `${path} stands for an attribute name that is ${problem.is}; allowed: ${problem.allowed}`,
      );
    }
  }
}
