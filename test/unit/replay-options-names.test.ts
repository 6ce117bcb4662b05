import { describe, expect, it } from 'vitest';
import { parseReplayArgs } from '../../shared/archive/replay-cli.js';
import { ReplayOptionsError } from '../../shared/archive/replay-errors.js';
import { planReplay } from '../../shared/archive/replay-options.js';

/*
 * A refusal names the option at fault: by its flag on the command line (`--to`), by its field in
 * the API (`to`). A refusal that involves a second option must not name that one the other way
 * (`--to … not after from`), so its text speaks of it without a name.
 */

const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/backfill.fifo';
const BASE = ['replay', '--archive-bucket', 'orders-archive', '--from', '2026-03-01', '--to-queue', QUEUE];

function refusal(run: () => unknown): ReplayOptionsError {
  try {
    run();
  } catch (error) {
    if (error instanceof ReplayOptionsError) return error;
    throw error;
  }
  throw new Error('not refused');
}

const api = (extra: Record<string, unknown>) =>
  refusal(() =>
    planReplay({
      bucket: 'orders-archive',
      from: '2026-03-01',
      queueUrl: QUEUE,
      s3: { send: async () => ({}) },
      sqs: { send: async () => ({}) },
      ...extra,
    } as Parameters<typeof planReplay>[0]),
  );

describe('replay refusals that involve two options', () => {
  it('--to not after --from: names --to on the command line and to in the API, and the start by its value only', () => {
    const cli = refusal(() => parseReplayArgs([...BASE, '--to', '2026-02-28']));
    expect(cli.field).toBe('--to');
    expect(cli.message).toBe(
      "Invalid replay option --to: got 2026-02-28T00:00:00.000Z, not after the range's start (2026-03-01T00:00:00.000Z); allowed: an instant after the start (the end is exclusive)",
    );

    const fromApi = api({ to: '2026-03-01' });
    expect(fromApi.field).toBe('to');
    expect(fromApi.message).toBe(
      "Invalid replay option to: got 2026-03-01T00:00:00.000Z, not after the range's start (2026-03-01T00:00:00.000Z); allowed: an instant after the start (the end is exclusive)",
    );
  });

  it('--aggregate of another type than --aggregate-type: the other is named by neither its flag nor its field', () => {
    const cli = refusal(() => parseReplayArgs([...BASE, '--aggregate', 'order:o-1', '--aggregate-type', 'payment']));
    expect(cli.message).toBe(
      'Invalid replay option --aggregate: is of type "order", but the aggregate type given is "payment"; allowed: the same aggregate type, or only one of the two filters',
    );
    expect(api({ aggregate: { type: 'order', id: 'o-1' }, aggregateType: 'payment' }).field).toBe('aggregate');
  });
});
