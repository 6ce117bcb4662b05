import { parseReplayArgs, REPLAY_USAGE, REPLAY_VALUE_FLAGS, type ReplayCommand } from '../archive/replay-cli.js';
import { ReplayOptionsError } from '../archive/replay-errors.js';
import { CATALOG_USAGE, CATALOG_VALUE_FLAGS, type CatalogCommand, parseCatalogArgs } from '../catalog/cli.js';
import { CatalogError } from '../catalog/errors.js';
import { showValue } from '../show-value.js';
import { parseRedriveArgs, REDRIVE_USAGE, type RedriveCommand, VALUE_FLAGS } from './cli-args.js';
import { DLQ_USAGE, type DlqCommand, parseDlqArgs } from './dlq-cli.js';
import { givenWord, RedriveOptionsError } from './errors.js';

/** The commands of the `dynamodb-outbox` command line. */
const COMMANDS = ['redrive', 'replay', 'dlq', 'catalog'] as const;

export const CLI_USAGE = `Usage: dynamodb-outbox <command> [options]

Commands:
  redrive <kind>   put back what the pipeline set aside, with the same event ids: the relay DLQ
                   (relay-dlq), a subscriber DLQ (queue-dlq), the relay's on-failure records
                   (on-failure); dynamodb-outbox redrive --help lists its options
  replay           send archived events of a time range (by type, aggregate type or
                   aggregate) to one SQS queue, in per-aggregate order, resumable;
                   dynamodb-outbox replay --help lists its options
  dlq summarize    group a DLQ's dead letters by reason, event type and aggregate type, with
                   counts and first/last time, leaving every one in the queue;
                   dynamodb-outbox dlq --help lists its options
  catalog          write the AsyncAPI 3.0 document of the config's topics and event types;
  catalog check    fail on a breaking change against a published one (CI);
                   dynamodb-outbox catalog --help lists their options

Options:
  -h, --help       show this text
  -V, --version    print the package's version

Exit status: 0 for --help and --version, 2 on a usage error (no command or an unknown one); each command
documents its own.`;

/** What the command line asks for: the list of commands (`usage`), the version, a redrive or a catalog command. */
export type CliCommand =
  | { readonly kind: 'usage' }
  | { readonly kind: 'version' }
  | RedriveCommand
  | ReplayCommand
  | DlqCommand
  | CatalogCommand;

/**
 * The command named: the first argument that is neither a flag nor the value of one
 * (`--endpoint URL redrive …` names `redrive`), as `util.parseArgs` counts positionals.
 */
function commandOf(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (VALUE_FLAGS[arg] !== undefined || CATALOG_VALUE_FLAGS[arg] !== undefined || REPLAY_VALUE_FLAGS[arg] !== undefined) i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

/**
 * Parses a `dynamodb-outbox` command line: `--help` without a command, or no command, or an
 * unknown one, is about the commands; `--version` (`-V`) without a command asks for the version; `redrive …` is parsed by {@link parseRedriveArgs}, `dlq …`
 * by {@link parseDlqArgs}. Throws a
 * {@link RedriveOptionsError} (field `command` when the command is missing or unknown) before any
 * AWS call.
 *
 * @example
 * ```ts
 * const command = parseCommandLine(process.argv.slice(2));
 * if (command.kind === 'usage') console.log(CLI_USAGE);
 * ```
 */
export function parseCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, topicArnsEnv?: string): CliCommand {
  const command = commandOf(argv);
  if (command === 'redrive') return parseRedriveArgs(argv, env, topicArnsEnv);
  if (command === 'replay') return parseReplayArgs(argv);
  if (command === 'dlq') return parseDlqArgs(argv);
  if (command === 'catalog') return parseCatalogArgs(argv);
  if (argv.includes('--help') || argv.includes('-h')) return { kind: 'usage' };
  if (command === undefined && (argv.includes('--version') || argv.includes('-V'))) return { kind: 'version' };
  throw new RedriveOptionsError('command', `${commandGiven(command, argv)}; allowed: ${COMMANDS.join(', ')}`);
}

/**
 * How a refusal of the command shows what was typed: the word, or that none was, with the options
 * typed without one (`--version` alone once read as if nothing had been typed).
 */
function commandGiven(command: string | undefined, argv: readonly string[]): string {
  if (command !== undefined || argv.length === 0) return givenWord(command);
  return `none given, only options (got ${showValue(argv)})`;
}

/** The usage to print below a refusal: the list of commands when the command was wrong, else the command's own. */
export const usageFor = (error: unknown, argv: readonly string[] = []): string => {
  if (error instanceof CatalogError) return CATALOG_USAGE;
  if (error instanceof ReplayOptionsError) return REPLAY_USAGE;
  if (error instanceof RedriveOptionsError && error.field !== 'command' && commandOf(argv) === 'dlq') return DLQ_USAGE;
  return error instanceof RedriveOptionsError && error.field === 'command' ? CLI_USAGE : REDRIVE_USAGE;
};
