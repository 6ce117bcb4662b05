/** Lambda's invocation payload limit for synchronous invocations. */
export const MAX_PAYLOAD_BYTES = 6 * 1024 * 1024;

/**
 * The size of `value` as JSON in UTF-8, as Lambda counts its payload limit.
 *
 * @example
 * ```ts
 * jsonLength({ Records: batch }) <= MAX_PAYLOAD_BYTES;
 * ```
 */
export const jsonLength = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

/**
 * An upper bound of `jsonLength(value)` (UTF-8 bytes of JSON), at a fraction of its cost: every
 * string counts six bytes per UTF-16 code unit (the longest escape, `\uXXXX`, is six ASCII bytes;
 * any other unit takes at most three, a surrogate pair four for two units), every number 32
 * (more than any double prints), and every separator is counted.
 *
 * @example
 * ```ts
 * // Only when the bound says it may not fit is the exact size worth its cost.
 * const fits = jsonLengthBound(record) <= room || jsonLength(record) <= room;
 * ```
 */
export function jsonLengthBound(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return 6 * value.length + 2;
    case 'number':
      return 32;
    case 'boolean':
      return 5;
    case 'object': {
      if (value === null) return 4;
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return jsonLengthBound((value as { toJSON(): unknown }).toJSON());
      let length = 2;
      if (Array.isArray(value)) {
        for (const item of value) length += jsonLengthBound(item) + 1;
        return length;
      }
      for (const key in value) length += 6 * key.length + 4 + jsonLengthBound((value as Record<string, unknown>)[key]);
      return length;
    }
    default:
      return 4;
  }
}
