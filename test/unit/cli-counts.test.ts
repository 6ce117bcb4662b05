import { describe, expect, it } from 'vitest';
import { positiveWholeNumber } from '../../shared/cli-tokens.js';
import { parseCommandLine } from '../../shared/redrive/cli-command.js';

/*
 * A count on the command line (redrive's and dlq summarize's --max, replay's --concurrency, up to
 * 100) is one rule: a positive whole number in decimal digits that a number holds exactly. Digits past
 * Number.MAX_SAFE_INTEGER are refused as typed, never read as a rounded number nobody typed.
 */

const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/billing-dlq';
const SOURCE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/billing';
const POSITIVE = 'a positive whole number in decimal digits';
const COMMANDS: ReadonlyArray<readonly [string, readonly string[], string, string]> = [
  ['redrive queue-dlq', ['redrive', 'queue-dlq', '--queue-url', QUEUE, '--to', SOURCE, '--max'], 'Invalid redrive option --max', POSITIVE],
  ['dlq summarize', ['dlq', 'summarize', '--queue-url', QUEUE, '--max'], 'Invalid dlq summarize option --max', POSITIVE],
  [
    'replay',
    ['replay', '--archive-bucket', 'orders-archive', '--from', '2026-03-01', '--to-queue', SOURCE, '--concurrency'],
    'Invalid replay option --concurrency',
    // A count with a maximum says its whole range.
    'a whole number from 1 to 100 in decimal digits',
  ],
];
const TOO_LARGE = ['9'.repeat(20), `1${'0'.repeat(30)}`, String(Number.MAX_SAFE_INTEGER + 1)];

function refusalOf(argv: readonly string[]): Error {
  try {
    parseCommandLine([...argv], {});
  } catch (error) {
    if (error instanceof Error) return error;
  }
  throw new Error(`not refused: ${argv.join(' ')}`);
}

describe('a count typed on the command line', () => {
  describe.each(COMMANDS)('%s', (_name, argv, heading, allowed) => {
    it.each([...TOO_LARGE, '0', '1e3', '2.5', '+3', ' 4'])('refuses %j as typed, with what is allowed', (count) => {
      expect(refusalOf([...argv, count]).message).toBe(`${heading}: got ${JSON.stringify(count)}; allowed: ${allowed}`);
    });
  });

  it('takes every whole number a number holds exactly', () => {
    const refuse = (problem: string) => new Error(problem);
    expect(positiveWholeNumber('1', refuse)).toBe(1);
    expect(positiveWholeNumber('007', refuse)).toBe(7);
    expect(positiveWholeNumber(String(Number.MAX_SAFE_INTEGER), refuse)).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => positiveWholeNumber(String(Number.MAX_SAFE_INTEGER + 1), refuse)).toThrow(
      `got "${Number.MAX_SAFE_INTEGER + 1}"; allowed: a positive whole number in decimal digits`,
    );
  });
});
