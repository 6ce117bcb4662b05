import { parseArgs } from 'node:util';
import { allowedOptions, commandLineRefusal } from '../../cli-refusal.js';
import { joinDashValues, parseArgsProblem, repeatedOption } from '../../cli-tokens.js';
import { decimalNumber } from '../../decimal-number.js';
import { refusalHeading } from '../../refusal-heading.js';
import { MAX_PORT } from '../../tcp-port.js';
import { LocalStackError } from '../errors.js';
import { checkLoadRate } from './load.js';
import { PORT_ALLOWED } from './ports.js';

/** What `npm start` was asked to do. */
export type LocalCommand =
  | { readonly kind: 'help' }
  | {
      readonly kind: 'start';
      readonly apiPort: number;
      readonly persistDir?: string;
      readonly loadRate?: number;
      readonly dynamoDbPort: number;
      readonly emulatorPort: number;
    };

export const DEFAULT_API_PORT = 3000;

export const LOCAL_USAGE = `Usage: npm start [-- options]

Starts the whole system on this machine: DynamoDB Local, the SNS/SQS emulator, the relay
(and the low-latency processor when configured), the example consumers, the example API and
a live view. Ctrl-C stops everything. More in docs/local.md.

Options:
  --port N            port of the example API (default ${DEFAULT_API_PORT}; 0 for a free one)
  --persist DIR       keep DynamoDB Local's data and the relay's checkpoints in DIR
                      (default: in memory, and the relay reads the stream from its start)
  --load RATE         send RATE requests per second to the API (place, pay, cancel orders)
  --dynamodb-port N   port of DynamoDB Local (default: a free one)
  --emulator-port N   port of the SNS/SQS/S3 emulator (default: a free one)
  -h, --help          show this help`;

function port(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = decimalNumber(value, true);
  if (!Number.isInteger(n) || n > MAX_PORT) {
    throw new LocalStackError('INVALID_OPTION', `${flag} ${JSON.stringify(value)} is not a port; allowed: ${PORT_ALLOWED}`);
  }
  return n;
}

/** The flags that take a value, with what the value is. */
const VALUE_FLAGS: Readonly<Record<string, string>> = {
  '--port': 'N',
  '--persist': 'DIR',
  '--load': 'RATE',
  '--dynamodb-port': 'N',
  '--emulator-port': 'N',
};
const ALLOWED = allowedOptions(VALUE_FLAGS, '--help');

/**
 * The parser's refusals (an unknown option, a missing value, a value after `--help`) in the words
 * every command of the package uses: `Unknown npm start option: got "--bogus"; allowed: …`.
 */
const parserRefusal = commandLineRefusal(
  ALLOWED,
  VALUE_FLAGS,
  (field, detail, options) => new LocalStackError('INVALID_OPTION', `${refusalHeading('npm start', field)}: ${detail}`, options),
);

/**
 * Parses `npm start`'s arguments strictly: an unknown flag, a missing value, a word that is no
 * option, a flag given twice, a bad number or one port given to two flags is a
 * {@link LocalStackError} `INVALID_OPTION` that names the flag, the value and what is allowed.
 */
export function parseLocalArgs(argv: readonly string[]): LocalCommand {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(joinDashValues(argv, VALUE_FLAGS, (message) => new LocalStackError('INVALID_OPTION', message)));
  } catch (error) {
    if (error instanceof LocalStackError) throw error;
    throw parserRefusal(`${parseArgsProblem(error)}; allowed: ${ALLOWED}`, { cause: error });
  }
  if (parsed.positionals.length > 0) {
    const given = JSON.stringify(parsed.positionals.join(' '));
    throw new LocalStackError(
      'INVALID_OPTION',
      `${refusalHeading('npm start', 'argument')}: got ${given}; allowed: options only (${ALLOWED})`,
    );
  }
  const repeated = repeatedOption(parsed.tokens);
  if (repeated !== undefined) throw new LocalStackError('INVALID_OPTION', repeated);
  const { values } = parsed;
  if (values.help === true) return { kind: 'help' };
  const persist = values.persist;
  if (persist !== undefined && persist.trim() === '') {
    throw new LocalStackError(
      'INVALID_OPTION',
      `--persist ${JSON.stringify(persist)} names no folder; allowed: a folder path, created when missing`,
    );
  }
  const load = values.load;
  const command = {
    kind: 'start',
    apiPort: port(values.port, '--port', DEFAULT_API_PORT),
    dynamoDbPort: port(values['dynamodb-port'], '--dynamodb-port', 0),
    emulatorPort: port(values['emulator-port'], '--emulator-port', 0),
    ...(persist === undefined ? {} : { persistDir: persist }),
    ...(load === undefined ? {} : { loadRate: checkLoadRate(decimalNumber(load), load, '--load') }),
  } as const;
  checkDistinctPorts([
    [values.port === undefined ? `the default --port ${command.apiPort} (the example API)` : `--port ${command.apiPort}`, command.apiPort],
    [`--dynamodb-port ${command.dynamoDbPort}`, command.dynamoDbPort],
    [`--emulator-port ${command.emulatorPort}`, command.emulatorPort],
  ]);
  return command;
}

function parseOptions(args: string[]) {
  return parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    tokens: true,
    options: {
      port: { type: 'string' },
      persist: { type: 'string' },
      load: { type: 'string' },
      'dynamodb-port': { type: 'string' },
      'emulator-port': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** One port for two parts would fail at start as "already in use", held by the stack itself. */
function checkDistinctPorts(ports: readonly (readonly [string, number])[]): void {
  for (const [i, [first, a]] of ports.entries()) {
    for (const [second, b] of ports.slice(i + 1)) {
      if (a !== 0 && a === b) {
        throw new LocalStackError(
          'INVALID_OPTION',
          `${first} and ${second} are the same port; allowed: a different port for each (0, or leaving out --dynamodb-port or --emulator-port, picks a free one)`,
        );
      }
    }
  }
}
