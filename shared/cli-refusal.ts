/**
 * The refusals of a command line that `parseStrictArgs` did not take, in the command's own words,
 * for every command of the `dynamodb-outbox` CLI that words them so (redrive, dlq summarize, replay).
 */

/**
 * Every option of a command, as its refusals list them: each flag that takes a value with what the
 * value is (`--max N`), then the flags that take none.
 *
 * @example
 * ```ts
 * allowedOptions({ '--out': 'FILE' }, '--help'); // '--out FILE, --help'
 * ```
 */
export const allowedOptions = (valueFlags: Readonly<Record<string, string>>, ...flags: readonly string[]): string =>
  [...Object.entries(valueFlags).map(([flag, value]) => `${flag} ${value}`), ...flags].join(', ');

/** The command's typed error for a refusal: `field` is an option (`--max`), or `option` or `line` (headed by `refusalHeading` in refusal-heading.ts). */
export type CommandRefusal<E extends Error> = (field: string, detail: string, options?: ErrorOptions) => E;

/** What `util.parseArgs` threw: its code says what was wrong, its message which option. */
const parseArgsCode = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null ? ((error as { code?: unknown }).code as string | undefined) : undefined;

/**
 * The option a `util.parseArgs` message names (`Unknown option '--foo'`, `Option '--queue-url <value>'
 * argument missing`), by its long name when it gives both (`Option '-h, --help' does not take an argument`).
 */
function namedOption(error: unknown): string | undefined {
  const quoted = /'(-[^']*)'/.exec(error instanceof Error ? error.message : '')?.[1] ?? '';
  const names = quoted.split(/[\s,]+/).filter((word) => word.startsWith('-'));
  return names.find((name) => name.startsWith('--')) ?? names[0];
}

/**
 * The `refuse` of `parseStrictArgs` for a command: an unknown option is refused on `option` with
 * `got "--foo"; allowed: …` (every option the command takes); an option without its value, with
 * one it does not take, given twice or followed by another flag is refused on that option
 * (`--max`); anything else on `line`. `refusal` makes the command's typed error of it.
 *
 * @example
 * ```ts
 * parseStrictArgs(argv, options, {
 *   allowed, valueFlags,
 *   refuse: commandLineRefusal(allowed, valueFlags, (field, detail, options) => new RedriveOptionsError(field, detail, options)),
 * });
 * ```
 */
export function commandLineRefusal<E extends Error>(
  allowed: string,
  valueFlags: Readonly<Record<string, string>>,
  refusal: CommandRefusal<E>,
): (message: string, options?: ErrorOptions) => E {
  return (message, options) => {
    const cause = options?.cause;
    const flag = namedOption(cause);
    const code = parseArgsCode(cause);
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag !== undefined) {
      return refusal('option', `got ${JSON.stringify(flag)}; allowed: ${allowed}`, { cause });
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag !== undefined) {
      const value = valueFlags[flag];
      const detail =
        value !== undefined ? `no value given; allowed: ${flag} ${value}` : `takes no value (no "=…" after it); allowed: ${flag} alone`;
      return refusal(flag, detail, { cause });
    }
    // The refusals parseStrictArgs words itself start with the option: `--max is given twice (…)`.
    const own = cause === undefined ? /^(--?[\w-]+) (?:is )?(.*)$/s.exec(message) : null;
    if (own !== null) return refusal(own[1] as string, own[2] as string);
    return refusal('line', message, cause === undefined ? undefined : { cause });
  };
}
