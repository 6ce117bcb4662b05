/** An option token of `util.parseArgs` with `tokens: true`. */
interface OptionToken {
  readonly kind: string;
  readonly name?: string;
  readonly value?: string | undefined;
}

/**
 * What to say about the first option given twice, or `undefined` when each is given once:
 * `parseArgs` keeps only the last value, so a repeated flag would otherwise win silently.
 *
 * @example
 * ```ts
 * const repeated = repeatedOption(parseArgs({ args, options, tokens: true }).tokens);
 * if (repeated !== undefined) throw new Error(repeated);
 * ```
 */
export function repeatedOption(tokens: readonly OptionToken[]): string | undefined {
  const given = new Map<string, string | undefined>();
  for (const token of tokens) {
    if (token.kind !== 'option' || token.name === undefined) continue;
    const flag = `--${token.name}`;
    if (given.has(flag)) {
      const values = token.value === undefined ? '' : ` (${JSON.stringify(given.get(flag))}, then ${JSON.stringify(token.value)})`;
      return `${flag} is given twice${values}; allowed: each option once`;
    }
    given.set(flag, token.value);
  }
  return undefined;
}

/**
 * A number written in plain decimal digits (`12`, `12.5`, `.5`; with `integer`, digits only), else
 * `NaN`: `Number()` alone would also take `0x10`, `1e2`, `0b101`, a sign or blanks.
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
