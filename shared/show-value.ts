/**
 * A value as an error message shows what was given: JSON where it has one, `a function` for
 * code, else `String(value)` (a value `JSON.stringify` refuses, such as a cycle or a bigint).
 *
 * @example
 * ```ts
 * showValue({ version: 0 }); // '{"version":0}'
 * ```
 */
export function showValue(value: unknown): string {
  if (typeof value === 'function') return 'a function';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
