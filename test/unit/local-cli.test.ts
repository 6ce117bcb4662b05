import { describe, expect, it } from 'vitest';
import { parseLocalArgs } from '../../shared/local/cli-args.js';
import { LocalStackError } from '../../shared/local/local-stack-error.js';

const rejection = (argv: string[]): LocalStackError => {
  try {
    parseLocalArgs(argv);
  } catch (error) {
    if (error instanceof LocalStackError) return error;
    throw error;
  }
  throw new Error(`parseLocalArgs accepted ${argv.join(' ')}`);
};

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
    expect(parseLocalArgs(['-h'])).toEqual({ kind: 'help' });
  });

  it.each([
    [['--load', 'abc'], /--load "abc" is not a rate; allowed: a number of requests per second above 0 and up to 1000/],
    [['--load', '0'], /--load "0" is not a rate/],
    [['--load', '5000'], /--load "5000" is not a rate.*up to 1000/],
    [['--load'], /--load <value>' argument missing/],
    [['--port', '70000'], /--port "70000" is not a port; allowed: a whole number from 0 .* to 65535/],
    [['--port=-1'], /--port "-1" is not a port/],
    [['--port', '-1'], /Option '--port' argument is ambiguous.*allowed: --port N/],
    [['--port', '3.5'], /--port "3.5" is not a port/],
    [['--persist', ''], /--persist "" names no folder/],
    [['--verbose'], /Unknown option '--verbose'; allowed: --port N, --persist DIR, --load RATE/],
    [['start'], /Unexpected argument 'start'.*allowed: --port N/],
  ])('rejects %j with a one-line message naming the value and what is allowed', (argv, message) => {
    const error = rejection(argv);
    expect(error.code).toBe('INVALID_OPTION');
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain('\n');
  });
});
