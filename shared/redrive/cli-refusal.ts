import { RedriveOptionsError } from './errors.js';

/** What `util.parseArgs` threw: its code says what was wrong, its message which option. */
const parseArgsCode = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null ? ((error as { code?: unknown }).code as string | undefined) : undefined;

/** The option a `util.parseArgs` message names (`Unknown option '--foo'`, `Option '--queue-url <value>' argument missing`). */
const namedOption = (error: unknown): string | undefined => /'(-[^' ]*)/.exec(error instanceof Error ? error.message : '')?.[1];

/**
 * The refusal of a command line that `parseStrictArgs` (its `refuse`) did not take, in the
 * command's own words: an unknown option is `Unknown <command> option: got "--foo"; allowed: …`
 * (every option the command takes); an option without its value, with one it does not take, given
 * twice or followed by another flag is `Invalid <command> option --max: …`, on that option.
 *
 * @example
 * ```ts
 * parseStrictArgs(argv, options, { allowed, valueFlags, refuse: commandLineRefusal('dlq summarize', allowed, valueFlags) });
 * ```
 */
export function commandLineRefusal(
  command: string,
  allowed: string,
  valueFlags: Readonly<Record<string, string>>,
): (message: string, options?: ErrorOptions) => RedriveOptionsError {
  return (message, options) => {
    const cause = options?.cause;
    const flag = namedOption(cause);
    const code = parseArgsCode(cause);
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag !== undefined) {
      return new RedriveOptionsError('option', `got ${JSON.stringify(flag)}; allowed: ${allowed}`, { command, cause });
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag !== undefined) {
      const value = valueFlags[flag];
      const detail =
        value !== undefined ? `no value given; allowed: ${flag} ${value}` : `takes no value (no "=…" after it); allowed: ${flag} alone`;
      return new RedriveOptionsError(flag, detail, { command, cause });
    }
    // The refusals parseStrictArgs words itself start with the option: `--max is given twice (…)`.
    const own = cause === undefined ? /^(--?[\w-]+) (?:is )?(.*)$/s.exec(message) : null;
    if (own !== null) return new RedriveOptionsError(own[1] as string, own[2] as string, { command });
    return new RedriveOptionsError('line', message, { command, ...(cause === undefined ? {} : { cause }) });
  };
}
