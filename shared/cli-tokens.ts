import { type ParseArgsConfig, parseArgs } from 'node:util';
import { decimalNumber } from './decimal-number.js';
import { errorMessage } from './error-message.js';

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
 * A count typed on a command line (`--max 5`): its number when it is a positive whole number in
 * decimal digits that a number holds exactly (at most `Number.MAX_SAFE_INTEGER`), else the error
 * `refuse` makes of what was typed: `1e3`, `2.5`, `0` or twenty nines are no count, where the last
 * would otherwise be read as a rounded number the operator never typed.
 *
 * @example
 * ```ts
 * const max = positiveWholeNumber('500', (problem) => new UsageError('--max', problem)); // 500
 * ```
 */
export function positiveWholeNumber(text: string, refuse: (problem: string) => Error): number {
  const n = decimalNumber(text, true);
  if (Number.isSafeInteger(n) && n > 0) return n;
  throw refuse(`got ${JSON.stringify(text)}; allowed: a positive whole number in decimal digits`);
}

/**
 * Node's parser refuses a value that starts with a dash (`--port -1`) with a long hint; a negative
 * number is joined to its flag (`--port=-1`), so it gets the flag's own message, and any other
 * dash after a flag that takes a value is `refused` with a one-line message. `valueFlags` maps
 * each such flag to what its value is (`{ '--port': 'N' }`).
 *
 * @example
 * ```ts
 * const args = joinDashValues(argv, { '--port': 'N' }, (message) => new UsageError(message));
 * ```
 */
export function joinDashValues(
  argv: readonly string[],
  valueFlags: Readonly<Record<string, string>>,
  refused: (message: string) => Error,
): string[] {
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const next = argv[i + 1];
    const placeholder = valueFlags[arg];
    if (placeholder !== undefined && next?.startsWith('-')) {
      if (!/^-[\d.]/.test(next)) {
        throw refused(
          `${arg} is followed by ${JSON.stringify(next)}, not by its value; allowed: ${arg} ${placeholder} (a value starting with "-" as ${arg}=${next})`,
        );
      }
      args.push(`${arg}=${next}`);
      i++;
    } else {
      args.push(arg);
    }
  }
  return args;
}

/**
 * `util.parseArgs`'s message in one line, without its hint about positional arguments (no
 * command here takes one that starts with a dash), for a refusal that goes on with what is allowed.
 */
export const parseArgsProblem = (error: unknown): string =>
  errorMessage(error)
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\. To specify a positional argument.*$/, '')
    .replace(/\.$/, '');

/** How {@link parseStrictArgs} refuses: the command's own typed error, and what the command allows. */
export interface StrictArgsSettings {
  /** Each flag that takes a value, mapped to what the value is (`{ '--port': 'N' }`), for {@link joinDashValues}. */
  readonly valueFlags?: Readonly<Record<string, string>>;
  /** Options meant to be given more than once (`['type']`); any other given twice is refused. */
  readonly repeatable?: readonly string[];
  /** The options the command allows, in words, for the refusal of an unknown one. */
  readonly allowed: string;
  /** The command's typed error for a message (`commandLineRefusal` words it by the parser's error, kept as `cause`). */
  readonly refuse: (message: string, options?: ErrorOptions) => Error;
}

type ArgsOptions = NonNullable<ParseArgsConfig['options']>;
type StrictParse<O extends ArgsOptions> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true; tokens: true }>
>;

/**
 * `util.parseArgs` as every command of this package uses it: strict, positionals allowed, a
 * negative number joined to its flag, and each refusal (an unknown option, a missing value, an
 * option given twice) thrown as the command's own typed error with what is allowed.
 *
 * @example
 * ```ts
 * const { values, positionals } = parseStrictArgs(argv, { json: { type: 'boolean' } }, {
 *   allowed: '--json',
 *   refuse: commandLineRefusal('--json', {}, (field, detail, options) => new RedriveOptionsError(field, detail, { ...options, command: 'dlq summarize' })),
 * });
 * ```
 */
export function parseStrictArgs<const O extends ArgsOptions>(
  argv: readonly string[],
  options: O,
  settings: StrictArgsSettings,
): Pick<StrictParse<O>, 'values' | 'positionals'> {
  const args = joinDashValues(argv, settings.valueFlags ?? {}, (message) => settings.refuse(message));
  const parse = (): StrictParse<O> => parseArgs({ args, options, allowPositionals: true, strict: true, tokens: true });
  let parsed: StrictParse<O>;
  try {
    parsed = parse();
  } catch (error) {
    throw settings.refuse(`${parseArgsProblem(error)}; allowed: ${settings.allowed}`, { cause: error });
  }
  const repeatable = settings.repeatable ?? [];
  const repeated = repeatedOption(parsed.tokens.filter((t) => !(t.kind === 'option' && repeatable.includes(t.name))));
  // parseArgs keeps the last value: a run against another queue than the one meant, silently.
  if (repeated !== undefined) throw settings.refuse(repeated);
  return { values: parsed.values, positionals: parsed.positionals };
}

/**
 * Whether a value is an http(s) URL with a host, as an endpoint (`--endpoint`) is: anything else
 * would fail only after a run began, or send nowhere. A queue URL has its own, stricter check
 * (`sqsQueueUrlFault` in shared/aws/sqs-queue-url.ts).
 *
 * @example
 * ```ts
 * isHttpUrl('http://localhost:4566'); // true
 * isHttpUrl('localhost:4566'); // false
 * ```
 */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}
