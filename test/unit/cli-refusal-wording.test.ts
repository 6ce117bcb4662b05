import { describe, expect, it } from 'vitest';
import { parseReplayArgs, REPLAY_USAGE } from '../../shared/archive/replay-cli.js';
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
    // Options alone were refused as if nothing had been typed ("none given").
    [['--verbose'], 'Invalid command: none given, only options (got ["--verbose"]); allowed: redrive, replay, dlq, catalog'],
    [
      ['--region', 'eu-west-1', '--dry-run'],
      'Invalid command: none given, only options (got ["--region","eu-west-1","--dry-run"]); allowed: redrive, replay, dlq, catalog',
    ],
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

describe('the options', () => {
  const REDRIVE_ALLOWED =
    '--queue-url URL, --to URL, --bucket NAME, --prefix P, --topic-arns JSON, --config FILE, --relay-dlq-url URL, --rate N, --max N, --endpoint URL, --streams-endpoint URL, --region REGION, --reason R, --type T, --aggregate-type A, --aggregate TYPE:ID, --since ISO, --until ISO, --dry-run, --help';
  const DLQ_ALLOWED =
    '--queue-url URL, --max N, --endpoint URL, --region REGION, --reason R, --type T, --aggregate-type A, --aggregate TYPE:ID, --since ISO, --until ISO, --json, --help';
  const redrive = ['redrive', 'queue-dlq', '--queue-url', DLQ, '--to', SOURCE];
  const dlq = ['dlq', 'summarize', '--queue-url', DLQ];

  it.each([
    [[...redrive, '--colour'], `Unknown redrive option: got "--colour"; allowed: ${REDRIVE_ALLOWED}`],
    [[...redrive, '-x'], `Unknown redrive option: got "-x"; allowed: ${REDRIVE_ALLOWED}`],
    [[...dlq, '--to', SOURCE], `Unknown dlq summarize option: got "--to"; allowed: ${DLQ_ALLOWED}`],
    [[...dlq, '--dry-run'], `Unknown dlq summarize option: got "--dry-run"; allowed: ${DLQ_ALLOWED}`],
  ])('%j: says the option given is unknown, and lists the options allowed', (argv, message) => {
    const error = refusal(() => parseCommandLine(argv, {}));
    expect(error.message).toBe(message);
    expect(error).toMatchObject({ field: 'option' });
  });

  it.each([
    [
      ['redrive', 'queue-dlq', '--to', SOURCE, '--queue-url'],
      'Invalid redrive option --queue-url: no value given; allowed: --queue-url URL',
    ],
    [[...redrive, '--dry-run=yes'], 'Invalid redrive option --dry-run: takes no value (no "=…" after it); allowed: --dry-run alone'],
    [[...redrive, '--help=yes'], 'Invalid redrive option --help: takes no value (no "=…" after it); allowed: --help alone'],
    [[...redrive, '--max', '1', '--max', '2'], 'Invalid redrive option --max: given twice ("1", then "2"); allowed: each option once'],
    [[...redrive, 'now'], 'Unexpected redrive argument: got "now"; allowed: options only after redrive queue-dlq (see --help)'],
    [['dlq', 'summarize', '--queue-url'], 'Invalid dlq summarize option --queue-url: no value given; allowed: --queue-url URL'],
    [[...dlq, '--json=yes'], 'Invalid dlq summarize option --json: takes no value (no "=…" after it); allowed: --json alone'],
    [[...dlq, '--max', '1', '--max', '2'], 'Invalid dlq summarize option --max: given twice ("1", then "2"); allowed: each option once'],
    [
      [...dlq, '--max', '-x'],
      'Invalid dlq summarize option --max: followed by "-x", not by its value; allowed: --max N (a value starting with "-" as --max=-x)',
    ],
    [[...dlq, 'now'], 'Unexpected dlq summarize argument: got "now"; allowed: options only after dlq summarize (see --help)'],
  ])('%j: names the option (or word) at fault, as one of its command', (argv, message) => {
    expect(refusal(() => parseCommandLine(argv, {})).message).toBe(message);
  });

  it.each([
    [['dlq', 'summarize'], '--queue-url: is required, none given; allowed: an SQS queue URL'],
    [
      ['dlq', 'summarize', '--queue-url', 'billing-dlq'],
      '--queue-url: got "billing-dlq", which is not an http:// or https:// URL with a host; allowed: an SQS queue URL',
    ],
    [[...dlq, '--max', '0'], '--max: got "0"; allowed: a positive whole number in decimal digits'],
    [[...dlq, '--since', 'yesterday'], '--since: got "yesterday"; allowed: a UTC date'],
    [[...dlq, '--reason', 'LOST'], '--reason: got "LOST"; allowed: PUBLISH_REJECTED'],
  ])('%j: dlq summarize calls its own options its own, not redrive options', (argv, message) => {
    const error = refusal(() => parseCommandLine(argv, {}));
    expect(error.message).toMatch(/^Invalid dlq summarize option /);
    expect(error.message).toContain(message);
    expect(usageFor(error, argv)).toBe(DLQ_USAGE);
  });
});

describe('an option required and not given', () => {
  const URL_ALLOWED =
    'allowed: an SQS queue URL, https://sqs.<region>.amazonaws.com/<12-digit account>/<queue name> (http://<host>:<port>/<account>/<queue name> for a local endpoint)';

  it.each([
    [['redrive', 'queue-dlq', '--queue-url', DLQ], `Invalid redrive option --to: is required for queue-dlq, none given; ${URL_ALLOWED}`],
    [['redrive', 'queue-dlq', '--to', SOURCE], `Invalid redrive option --queue-url: is required for queue-dlq, none given; ${URL_ALLOWED}`],
    [
      ['redrive', 'relay-dlq', '--queue-url', DLQ],
      'Invalid redrive option --topic-arns: is required, none given (nor OUTBOX_TOPIC_ARNS); allowed: JSON {"topic name":"topic ARN"}',
    ],
    [
      ['redrive', 'on-failure', '--topic-arns', '{}'],
      'Invalid redrive option --queue-url/--bucket: neither given; allowed: exactly one, --queue-url for an SQS destination or --bucket for an S3 destination',
    ],
    [
      ['redrive', 'on-failure', '--topic-arns', '{}', '--queue-url', DLQ, '--bucket', 'failed-batches'],
      'Invalid redrive option --queue-url/--bucket: both given; allowed: exactly one, --queue-url for an SQS destination or --bucket for an S3 destination',
    ],
    [
      ['replay', '--archive-bucket', 'orders-archive', '--to-queue', QUEUE],
      'Invalid replay option --from: is required for replay, none given; allowed: --from DATE (see --help)',
    ],
  ])('%j: says none was given, and what is allowed', (argv, message) => {
    const parse = argv[0] === 'replay' ? () => parseReplayArgs(argv) : () => parseCommandLine(argv, {});
    expect(refusal(parse).message).toBe(message);
  });
});

describe("replay's command line", () => {
  const REPLAY_ALLOWED =
    '--archive-bucket B, --from DATE, --to DATE, --type T, --aggregate-type A, --aggregate A:ID, --to-queue URL, --rate N, --concurrency N, --checkpoint PATH, --endpoint URL, --region REGION, --dry-run, --restart, --json, --help';
  const replay = ['replay', '--archive-bucket', 'orders-archive', '--from', '2026-03-01', '--to-queue', QUEUE];

  it.each([
    [[...replay, '--frm', 'x'], 'option', `Unknown replay option: got "--frm"; allowed: ${REPLAY_ALLOWED}`],
    [[...replay, '-x'], 'option', `Unknown replay option: got "-x"; allowed: ${REPLAY_ALLOWED}`],
    [[...replay, 'now'], 'argument', 'Unexpected replay argument: got "now"; allowed: options only after replay (see --help)'],
    [[...replay, '--type'], '--type', 'Invalid replay option --type: no value given; allowed: --type T'],
    [
      [...replay, '--dry-run=yes'],
      '--dry-run',
      'Invalid replay option --dry-run: takes no value (no "=…" after it); allowed: --dry-run alone',
    ],
    [
      [...replay, '--rate', '2', '--rate', '3'],
      '--rate',
      'Invalid replay option --rate: given twice ("2", then "3"); allowed: each option once',
    ],
    [
      [...replay, '--concurrency', '-x'],
      '--concurrency',
      'Invalid replay option --concurrency: followed by "-x", not by its value; allowed: --concurrency N (a value starting with "-" as --concurrency=-x)',
    ],
  ])('%j: is refused on %s in its own words, as redrive is', (argv, field, message) => {
    const error = refusal(() => parseCommandLine(argv, {}));
    expect(error).toBeInstanceOf(ReplayOptionsError);
    expect(error).toMatchObject({ name: 'ReplayOptionsError', code: 'INVALID_REPLAY_OPTIONS', field });
    expect(error.message).toBe(message);
    expect(error.message).toBe(
      String(error.stack)
        .split('\n')[0]
        ?.replace(/^ReplayOptionsError: /, ''),
    );
    expect(usageFor(error, argv)).toBe(REPLAY_USAGE);
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
