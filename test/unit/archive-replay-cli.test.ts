import { describe, expect, it } from 'vitest';
import { parseReplayArgs } from '../../shared/archive/replay-cli.js';
import { ReplayOptionsError } from '../../shared/archive/replay-errors.js';
import { parseReplayInstant, planReplay } from '../../shared/archive/replay-options.js';
import { parseCommandLine } from '../../shared/redrive/cli-command.js';

const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/backfill.fifo';
const BASE_FLAGS = { '--archive-bucket': 'orders-archive', '--from': '2026-03-01', '--to-queue': QUEUE };
const base = ['replay', ...Object.entries(BASE_FLAGS).flat()];

function refusal(argv: string[]): ReplayOptionsError {
  try {
    parseReplayArgs(argv);
  } catch (error) {
    if (error instanceof ReplayOptionsError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('replay command line', () => {
  it('parses every option, --type repeated', () => {
    const command = parseReplayArgs([
      ...base,
      '--to',
      '2026-03-02T12:00:00+02:00',
      '--type',
      'order.placed',
      '--type',
      'order.paid',
      '--aggregate',
      'order:o-1:x',
      '--rate',
      '2.5',
      '--concurrency',
      '4',
      '--checkpoint',
      'b.ckpt',
      '--json',
      '--endpoint',
      'http://localhost:4566',
      '--region',
      'eu-west-1',
    ]);
    expect(command).toEqual({
      kind: 'replay',
      bucket: 'orders-archive',
      from: '2026-03-01',
      to: '2026-03-02T12:00:00+02:00',
      queueUrl: QUEUE,
      types: ['order.placed', 'order.paid'],
      aggregate: { type: 'order', id: 'o-1:x' },
      ratePerSecond: 2.5,
      concurrency: 4,
      dryRun: false,
      checkpointPath: 'b.ckpt',
      restart: false,
      json: true,
      endpoint: 'http://localhost:4566',
      region: 'eu-west-1',
    });
  });

  it('is the command the dynamodb-outbox command line dispatches to, flags before it included', () => {
    expect(parseCommandLine(['--from', '2026-03-01', 'replay', '--archive-bucket', 'orders-archive', '--to-queue', QUEUE])).toMatchObject({
      kind: 'replay',
    });
    expect(parseCommandLine(['replay', '--help'])).toEqual({ kind: 'replay-help' });
  });

  it.each([
    [['--from', 'yesterday'], '--from', 'got "yesterday"'],
    [['--from', '2026-02-30'], '--from', 'got "2026-02-30"'],
    [['--from', '2026-03-01T10:00:00'], '--from', 'Z or an offset'],
    [['--from', '2026-02-30T10:00Z'], '--from', 'got "2026-02-30T10:00Z"'],
    [['--from', '2026-03-01T24:00:00Z'], '--from', 'got "2026-03-01T24:00:00Z"'],
    [['--to', '2026-02-28'], '--to', "not after the range's start"],
    [['--aggregate', 'order'], '--aggregate', 'TYPE:ID'],
    [['--aggregate', 'order:o-1', '--aggregate-type', 'payment'], '--aggregate', 'the same aggregate type'],
    [['--rate', '0'], '--rate', 'at least 1'],
    [['--rate', '0.5'], '--rate', 'at least 1'],
    [['--concurrency', '1000'], '--concurrency', 'from 1 to 100'],
    [['--concurrency', '2.5'], '--concurrency', 'whole number'],
    // Every refusal of the flag says the whole range, and what was typed, as typed.
    [['--concurrency', '0'], '--concurrency', 'got "0"; allowed: a whole number from 1 to 100'],
    [['--concurrency', '101'], '--concurrency', 'got "101"; allowed: a whole number from 1 to 100'],
    [['--concurrency', '1e2'], '--concurrency', 'got "1e2"; allowed: a whole number from 1 to 100'],
    [['--type', 'order.placed', '--type', ''], '--type', 'got ["order.placed",""]; allowed: one or more event type names, each non-empty'],
    [['--aggregate-type', ''], '--aggregate-type', 'got ""; allowed: a non-empty aggregate type name'],
    [
      ['--to-queue', 'orders'],
      '--to-queue',
      'got "orders", which is not an http:// or https:// URL with a host; allowed: an SQS queue URL',
    ],
    // Taken before: any path was.
    [
      ['--to-queue', 'https://sqs.eu-west-1.amazonaws.com/orders'],
      '--to-queue',
      'which has "/orders" after its host, where /<account>/<queue name> belongs',
    ],
    [['--archive-bucket', 'Orders_Archive'], '--archive-bucket', 'S3 bucket name'],
    [['--restart', '--dry-run'], '--restart', 'does not apply with --dry-run'],
    [['--frm', 'x'], 'option', 'Unknown replay option: got "--frm"'],
    [['--type'], '--type', 'no value given; allowed: --type T'],
  ])('rejects %j, naming %s', (extra, field, text) => {
    // A flag of `extra` stands in for the base's.
    const kept = Object.entries(BASE_FLAGS).filter(([flag]) => !extra.includes(flag));
    const error = refusal(['replay', ...kept.flat(), ...extra]);
    expect(error.field).toBe(field);
    expect(error.message).toContain(text);
  });

  it('rejects a missing --from, --archive-bucket or --to-queue', () => {
    expect(refusal(['replay', '--archive-bucket', 'orders-archive', '--to-queue', QUEUE]).field).toBe('--from');
    expect(refusal(['replay', '--from', '2026-03-01', '--to-queue', QUEUE]).field).toBe('--archive-bucket');
    expect(refusal(['replay', '--archive-bucket', 'orders-archive', '--from', '2026-03-01']).field).toBe('--to-queue');
  });
});

describe('parseReplayInstant', () => {
  it('reads a date as its UTC midnight and a time with its zone', () => {
    expect(new Date(parseReplayInstant('2026-03-01', 'from')).toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(new Date(parseReplayInstant('2026-03-01T10:30:00+02:00', 'from')).toISOString()).toBe('2026-03-01T08:30:00.000Z');
    expect(new Date(parseReplayInstant('2026-03-01T10:30Z', 'from')).toISOString()).toBe('2026-03-01T10:30:00.000Z');
  });
});

describe('planReplay', () => {
  it('rejects an event type that is not well-formed Unicode, which no archive key can name', () => {
    const send = async () => ({});
    const plan = () =>
      planReplay({
        s3: { send } as never,
        sqs: { send } as never,
        bucket: 'orders-archive',
        from: '2026-03-01',
        types: ['\uD800'],
        queueUrl: QUEUE,
      });
    expect(plan).toThrow(ReplayOptionsError);
    expect(plan).toThrow(/types.*well-formed Unicode/);
  });

  it('records the selection in one form: types sorted once, the aggregate type from the aggregate, a FIFO queue by its name', () => {
    const send = async () => ({});
    const plan = planReplay({
      s3: { send } as never,
      sqs: { send } as never,
      bucket: 'orders-archive',
      from: new Date('2026-03-01T00:00:00Z'),
      types: ['b', 'a', 'b'],
      aggregate: { type: 'order', id: 'o-1' },
      queueUrl: QUEUE,
    });
    expect(plan.parameters).toEqual({
      bucket: 'orders-archive',
      from: '2026-03-01T00:00:00.000Z',
      to: undefined,
      types: ['a', 'b'],
      aggregateType: 'order',
      aggregate: { type: 'order', id: 'o-1' },
      queueUrl: QUEUE,
    });
    expect(plan.fifo).toBe(true);
    expect(plan.holdBackMs).toBe(300_000);
  });
});
