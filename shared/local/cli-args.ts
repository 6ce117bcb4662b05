import { parseArgs } from 'node:util';
import { checkLoadRate } from './load.js';
import { LocalStackError } from './local-stack-error.js';

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
  --persist DIR       keep DynamoDB Local's data in DIR (default: in memory)
  --load RATE         send RATE requests per second to the API (place, pay, cancel orders)
  --dynamodb-port N   port of DynamoDB Local (default: a free one)
  --emulator-port N   port of the SNS/SQS/S3 emulator (default: a free one)
  -h, --help          show this help`;

function port(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isInteger(n) || n > 65_535) {
    throw new LocalStackError(
      'INVALID_OPTION',
      `${flag} ${JSON.stringify(value)} is not a port; allowed: a whole number from 0 (a free port) to 65535`,
    );
  }
  return n;
}

/**
 * Parses `npm start`'s arguments strictly: an unknown flag, a missing value or a bad number is
 * a {@link LocalStackError} `INVALID_OPTION` that names the flag, the value and what is allowed.
 */
export function parseLocalArgs(argv: readonly string[]): LocalCommand {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        persist: { type: 'string' },
        load: { type: 'string' },
        'dynamodb-port': { type: 'string' },
        'emulator-port': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    const message = (error as Error).message
      .replace(/\s*\n\s*/g, ' ')
      .replace(/\. To specify a positional argument.*$/, '')
      .replace(/\.$/, '');
    throw new LocalStackError(
      'INVALID_OPTION',
      `${message}; allowed: --port N, --persist DIR, --load RATE, --dynamodb-port N, --emulator-port N, --help`,
    );
  }
  if (values.help === true) return { kind: 'help' };
  const persist = values.persist as string | undefined;
  if (persist !== undefined && persist.trim() === '') {
    throw new LocalStackError('INVALID_OPTION', '--persist "" names no folder; allowed: a folder path, created when missing');
  }
  const load = values.load as string | undefined;
  return {
    kind: 'start',
    apiPort: port(values.port as string | undefined, '--port', DEFAULT_API_PORT),
    dynamoDbPort: port(values['dynamodb-port'] as string | undefined, '--dynamodb-port', 0),
    emulatorPort: port(values['emulator-port'] as string | undefined, '--emulator-port', 0),
    ...(persist === undefined ? {} : { persistDir: persist }),
    ...(load === undefined ? {} : { loadRate: checkLoadRate(load.trim() === '' ? Number.NaN : Number(load), load, '--load') }),
  };
}
