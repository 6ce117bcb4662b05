import { describe, expect, it } from 'vitest';
import { LocalStackError } from '../../shared/local/errors.js';
import { parseLocalArgs } from '../../shared/local/stack/cli-args.js';
import { portRefusal } from '../../shared/local/stack/ports.js';

const rejection = (argv: string[]): LocalStackError => {
  try {
    parseLocalArgs(argv);
  } catch (error) {
    if (error instanceof LocalStackError) return error;
    throw error;
  }
  throw new Error(`parseLocalArgs accepted ${argv.join(' ')}`);
};

/** Every option of npm start, as its refusals list them. */
const ALLOWED = '--port N, --persist DIR, --load RATE, --dynamodb-port N, --emulator-port N, --help';

describe('npm start arguments', () => {
  it('starts with the embedded defaults when given nothing: API on 3000, in memory, no load, free ports', () => {
    expect(parseLocalArgs([])).toEqual({ kind: 'start', apiPort: 3000, dynamoDbPort: 0, emulatorPort: 0 });
  });

  it('reads every flag, in both --flag value and --flag=value forms', () => {
    expect(
      parseLocalArgs(['--port=8080', '--persist', '.data', '--load', '12.5', '--dynamodb-port', '8000', '--emulator-port=4566']),
    ).toEqual({
      kind: 'start',
      apiPort: 8080,
      persistDir: '.data',
      loadRate: 12.5,
      dynamoDbPort: 8000,
      emulatorPort: 4566,
    });
    expect(parseLocalArgs(['--load', '.5'])).toMatchObject({ loadRate: 0.5 });
    expect(parseLocalArgs(['-h'])).toEqual({ kind: 'help' });
  });

  it('takes port 0 (a free port) for several flags at once', () => {
    expect(parseLocalArgs(['--port', '0', '--dynamodb-port', '0', '--emulator-port=0'])).toMatchObject({
      apiPort: 0,
      dynamoDbPort: 0,
      emulatorPort: 0,
    });
  });

  it.each([
    [['--load', 'abc'], /--load "abc" is not a rate; allowed: a number of requests per second from 0.1 up to 1000/],
    [['--load', '0'], /--load "0" is not a rate/],
    [['--load', '0.0000000001'], /--load "0.0000000001" is not a rate; allowed: a number of requests per second from 0.1 up to 1000/],
    [['--load', '1e2'], /--load "1e2" is not a rate/],
    [['--load', '5000'], /--load "5000" is not a rate.*up to 1000/],
    // The parser's refusals are worded as every command of the package words them (shared/cli-refusal.ts).
    [['--load'], /^Invalid npm start option --load: no value given; allowed: --load RATE$/],
    [['--help=yes'], /^Invalid npm start option --help: takes no value \(no "=…" after it\); allowed: --help alone$/],
    [['--port', '70000'], /--port "70000" is not a port; allowed: a whole number from 0 .* to 65535/],
    [['--port=-1'], /--port "-1" is not a port/],
    [['--port', '-1'], /^--port "-1" is not a port; allowed: a whole number/],
    [['--load', '-5'], /^--load "-5" is not a rate/],
    [
      ['--port', '--load', '5'],
      /^--port is followed by "--load", not by its value; allowed: --port N \(a value starting with "-" as --port=--load\)/,
    ],
    [['--load', '0x10'], /^--load "0x10" is not a rate/],
    [['--load', '1e2'], /^--load "1e2" is not a rate/],
    [['--load', ' 5'], /^--load " 5" is not a rate/],
    [['--port', '8080', '--port=8081'], /^--port is given twice \("8080", then "8081"\); allowed: each option once/],
    [['--load', '5', '--persist', 'a', '--load', '5'], /^--load is given twice/],
    [['-h', '--help'], /^--help is given twice; allowed: each option once/],
    [
      ['--dynamodb-port', '5555', '--emulator-port', '5555'],
      /^--dynamodb-port 5555 and --emulator-port 5555 are the same port; allowed: a different port for each/,
    ],
    [['--dynamodb-port', '3000'], /^the default --port 3000 \(the example API\) and --dynamodb-port 3000 are the same port/],
    [['--port', '4566', '--emulator-port', '4566'], /^--port 4566 and --emulator-port 4566 are the same port/],
    [['--port', '3.5'], /--port "3.5" is not a port/],
    [['--persist', ''], /--persist "" names no folder/],
    [['--persist', '   '], /--persist " {3}" names no folder/],
    [['--verbose'], new RegExp(`^Unknown npm start option: got "--verbose"; allowed: ${ALLOWED}$`)],
    [['-x'], new RegExp(`^Unknown npm start option: got "-x"; allowed: ${ALLOWED}$`)],
    [['start'], new RegExp(`^Unexpected npm start argument: got "start"; allowed: options only \\(${ALLOWED}\\)$`)],
  ])('rejects %j with a one-line message naming the value and what is allowed', (argv, message) => {
    const error = rejection(argv);
    expect(error.code).toBe('INVALID_OPTION');
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain('\n');
  });
});

describe('ports the local stack cannot bind', () => {
  it.each([
    ['EADDRINUSE', 'port 8000 for DynamoDB Local is already in use; choose another port or stop what holds it'],
    ['EACCES', 'port 8000 for DynamoDB Local is not allowed for this user; choose a port above 1023'],
    ['EADDRNOTAVAIL', 'port 8000 for DynamoDB Local cannot be bound (EADDRNOTAVAIL); choose another port'],
  ])('says what %s means for the port', (code, message) => {
    expect(portRefusal(code, 8000, 'DynamoDB Local')).toBe(message);
  });
});
