/**
 * A number written in plain decimal digits (`12`, `12.5`, `.5`; with `integer`, digits only), else
 * `NaN`: `Number()` alone would also take `0x10`, `1e2`, `0b101`, a sign or blanks. The one reading
 * of a number given as text, by the library (a rate) and the command lines (`--max`, `--port`) alike.
 *
 * @example
 * ```ts
 * decimalNumber('2.5'); // 2.5
 * decimalNumber('1e2'); // NaN
 * ```
 */
export function decimalNumber(text: string, integer = false): number {
  return (integer ? /^\d+$/ : /^(\d+(\.\d+)?|\.\d+)$/).test(text) ? Number(text) : Number.NaN;
}
