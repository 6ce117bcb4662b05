/**
 * Binary values as the DocumentClient marshals them (telling them by their constructor's name),
 * and which of them it would not send as the bytes they hold: the write helper refuses those in
 * an operation, and a consumer in a handler's writes (attribute-values.ts walks the values).
 */

/** The classes the DocumentClient marshals as binary (`B`), by constructor name as it tells them. */
const BINARY_TYPES = new Set([
  'ArrayBuffer',
  'Blob',
  'Buffer',
  'DataView',
  'File',
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
]);

/** A value's constructor's name, as the DocumentClient tells classes apart. */
export const constructorName = (value: object): string | undefined =>
  (value as { constructor?: { name?: unknown } }).constructor?.name as string;
/** Whether the DocumentClient marshals `value` as binary (`B`): by its constructor's name, as it tells them. */
export const isBinary = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && BINARY_TYPES.has(constructorName(value) ?? '');

/**
 * Why the DocumentClient would not send `value` as the bytes it holds, as a predicate of its path:
 * it sends a binary value other than a `Uint8Array` (or `Buffer`) without them, an `ArrayBuffer`,
 * a `DataView` or a `Blob` as empty binary, and fails on other typed arrays; else `undefined`, also
 * for one of no bytes, which it sends as the empty binary it is (or as `NULL` under
 * `convertEmptyValues`, as an empty `Uint8Array`). (Members of a binary Set go another way:
 * {@link binaryMemberProblem}.)
 */
export function binaryProblem(value: unknown): string | undefined {
  if (!isBinary(value) || value instanceof Uint8Array || byteCount(value as object) === 0) return undefined;
  return `is ${binaryGiven(value as object)}, which the DynamoDB DocumentClient does not send as its bytes (it sends an ArrayBuffer, a DataView or a Blob as empty binary, and fails on a typed array other than Uint8Array); allowed: binary as a Uint8Array or a Buffer, e.g. ${asUint8Array(value as object)}`;
}

/** A binary value as the messages show it: `an ArrayBuffer of 4 bytes`. */
function binaryGiven(value: object): string {
  const name = constructorName(value) as string;
  return `${/^[AEIO]/.test(name) ? 'an' : 'a'} ${name} of ${byteCount(value)} bytes`;
}

/** How many bytes a binary value holds. */
const byteCount = (value: object): number => (value instanceof Blob ? value.size : (value as ArrayBufferLike | ArrayBufferView).byteLength);

/** How to give a binary value's bytes as a `Uint8Array`. */
const asUint8Array = (value: object): string =>
  value instanceof Blob
    ? 'new Uint8Array(await blob.arrayBuffer())'
    : value instanceof ArrayBuffer
      ? 'new Uint8Array(arrayBuffer)'
      : 'new Uint8Array(view.buffer, view.byteOffset, view.byteLength)';

/**
 * Why the DocumentClient would not send the members of a binary Set as their bytes: it sends a
 * view's (any typed array's, a `DataView`'s), and fails on an `ArrayBuffer` or a `Blob`; else
 * `undefined`, also for a Set not all of binary values (what attribute-values.ts's `setProblem` judges).
 */
export function binaryMemberProblem(members: readonly unknown[]): string | undefined {
  const present = members.filter((member) => member !== undefined);
  if (!present.every(isBinary)) return undefined;
  const bad = present.find((member) => !ArrayBuffer.isView(member)) as object | undefined;
  if (bad === undefined) return undefined;
  return `is a binary Set holding ${binaryGiven(bad)}, on which the DynamoDB DocumentClient fails (it sends the members of a binary Set from views: a Uint8Array, a Buffer, another typed array or a DataView); allowed: members as a Uint8Array or a Buffer, e.g. ${asUint8Array(bad)}`;
}
