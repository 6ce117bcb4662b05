/**
 * A value as an error message shows what was given: a number or bigint as written (`NaN`,
 * `-Infinity`, `100n`: JSON has none of them, and would say `null` or refuse; a bare `100` would
 * read as a number that fits), `a function` for code, else JSON where it has one, or
 * `String(value)` (a value `JSON.stringify` refuses, such as a cycle). Only the value itself: a
 * NaN inside an object still shows as JSON's `null`.
 *
 * @example
 * ```ts
 * showValue({ version: 0 }); // '{"version":0}'
 * showValue(Number.NaN); // 'NaN'
 * ```
 */
export function showValue(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return 'a function';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
