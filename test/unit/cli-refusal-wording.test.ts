import { describe, expect, it } from 'vitest';
import { parseReplayArgs } from '../../shared/archive/replay-cli.js';
import { ReplayOptionsError } from '../../shared/archive/replay-errors.js';
import { parseRedriveArgs } from '../../shared/redrive/cli-args.js';
import { CLI_USAGE, parseCommandLine, usageFor } from '../../shared/redrive/cli-command.js';
import { DLQ_USAGE } from '../../shared/redrive/dlq-cli.js';
import { RedriveOptionsError } from '../../shared/redrive/errors.js';
import { rateLimiter } from '../../shared/redrive/rate-limit.js';

/*
 * A refusal names what was wrong as the person typed it: a word of the command line that is no
 * option (the command, the dlq subcommand, the redrive kind) is not called an option, a word not
 * given is not shown as "" (an empty word typed), and a rate's allowed values are the rule itself.
 */

const DLQ = 'https://sqs.eu-west-1.amazonaws.com/123456789012/billing-dlq';
const SOURCE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/billing';
const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/backfill.fifo';

function refusal(parse: () => unknown): Error {
  try {
    parse();
  } catch (error) {
    if (error instanceof RedriveOptionsError || error instanceof ReplayOptionsError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('the words before the options', () => {
  it.each([
    [[], 'Invalid command: none given; allowed: redrive, replay, dlq, catalog'],
    [['teleport'], 'Invalid command: got "teleport"; allowed: redrive, replay, dlq, catalog'],
    [['--region', 'eu-west-1', 'teleport'], 'Invalid command: got "teleport"; allowed: redrive, replay, dlq, catalog'],
  ])('%j: the command, and the commands allowed', (argv, message) => {
    const error = refusal(() => parseCommandLine(argv, {}));
    expect(error.message).toBe(message);
    expect(usageFor(error, argv)).toBe(CLI_USAGE);
  });

  it.each([
    [['dlq'], 'Invalid dlq subcommand: none given; allowed: summarize'],
    [['dlq', 'sumarize'], 'Invalid dlq subcommand: got "sumarize"; allowed: summarize'],
  ])('%j: the dlq subcommand, and the subcommands allowed', (argv, message) => {
    const error = refusal(() => parseCommandLine(argv, {}));
    expect(error.message).toBe(message);
    expect(usageFor(error, argv)).toBe(DLQ_USAGE);
  });

  it.each([
    [['redrive'], 'Invalid redrive kind: none given; allowed: relay-dlq, queue-dlq, on-failure'],
    [['redrive', 'relay'], 'Invalid redrive kind: got "relay"; allowed: relay-dlq, queue-dlq, on-failure'],
    [['redrive', ''], 'Invalid redrive kind: got ""; allowed: relay-dlq, queue-dlq, on-failure'],
  ])('%j: the redrive kind, and the kinds allowed', (argv, message) => {
    expect(refusal(() => parseCommandLine(argv, {})).message).toBe(message);
  });

  it('calls a redrive command line of another command a command', () => {
    expect(refusal(() => parseRedriveArgs(['replay', 'relay-dlq'], {})).message).toBe('Invalid command: got "replay"; allowed: redrive');
    expect(refusal(() => parseRedriveArgs([], {})).message).toBe('Invalid command: none given; allowed: redrive');
  });
});

describe('--rate', () => {
  const redrive = (rate: string) => ['redrive', 'queue-dlq', '--queue-url', DLQ, '--to', SOURCE, '--rate', rate];
  const replay = (rate: string) => [
    'replay',
    '--archive-bucket',
    'orders-archive',
    '--from',
    '2026-03-01',
    '--to-queue',
    QUEUE,
    '--rate',
    rate,
  ];

  it.each(['0', '0.5', '0.001', '-1', '', '0b101', '1e3', 'fast'])(
    '%j: redrive states the rule, with the reason the redrive functions give',
    (rate) => {
      expect(refusal(() => parseRedriveArgs(redrive(rate), {})).message).toBe(
        `Invalid redrive option --rate: got ${JSON.stringify(rate)}; allowed: at least 1 event per second (slower, one batch would hold its messages for hours), in decimal digits, e.g. 2.5`,
      );
    },
  );

  it('is refused by redrive for the reason the redrive functions give', () => {
    const api = refusal(() => rateLimiter(0.5)).message;
    const cli = refusal(() => parseRedriveArgs(redrive('0.5'), {})).message;
    const reason = '(slower, one batch would hold its messages for hours)';
    expect(api).toContain(`allowed: at least 1 event per second ${reason}`);
    expect(cli).toContain(`allowed: at least 1 event per second ${reason},`);
  });

  it.each(['0', '0.5', '-1', '', 'fast'])('%j: replay states the rule', (rate) => {
    const error = refusal(() => parseReplayArgs(replay(rate)));
    expect(error.message).toBe(
      `Invalid replay option --rate: got ${JSON.stringify(rate)}; allowed: at least 1 event per second, in decimal digits, e.g. 2.5`,
    );
  });

  it.each([
    ['1', 1],
    ['2.5', 2.5],
    ['500', 500],
  ])('%j is taken by both', (rate, perSecond) => {
    expect(parseRedriveArgs(redrive(rate), {})).toMatchObject({ ratePerSecond: perSecond });
    expect(parseReplayArgs(replay(rate))).toMatchObject({ ratePerSecond: perSecond });
  });
});
