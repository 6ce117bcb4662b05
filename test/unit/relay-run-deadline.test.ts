import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../shared/errors.js';
import { FakeSns } from '../helpers/fake-sns.js';
import { relayWith } from '../helpers/relay-fixtures.js';
import { slotRecord } from '../helpers/stream-records.js';

/** The reason `relay()` rejected with, or a failure when it resolved. */
async function refusal(deadline: unknown): Promise<ConfigError> {
  const sns = new FakeSns();
  const records = [slotRecord({ id: 'o-1', sequenceNumber: '100' })];
  const outcome = await relayWith(sns)
    .relay(records, { deadline: deadline as number })
    .then(
      (result) => new Error(`relay() took deadline ${String(deadline)} and published ${result.published}`),
      (error: unknown) => error,
    );
  if (!(outcome instanceof ConfigError)) throw outcome;
  expect(sns.requests).toHaveLength(0);
  return outcome;
}

describe('relay deadline option', () => {
  it('refuses, before sending anything, a deadline that is no finite number or is more than 15 minutes ahead', async () => {
    // Past a timer's longest wait (2^31 - 1 ms ahead) the run's wait fires at once, over and over, while requests are in flight.
    const far = await refusal(Date.now() + 2 ** 31);
    expect(far).toMatchObject({ field: 'deadline' });
    expect(far.message).toMatch(
      /got \d+ \(2147483\d{3} ms from now\); allowed: epoch ms at most 900000 ms from now \(a relay function's longest timeout, relay\.timeoutSeconds' bound of 900 s\), or leave it out/,
    );
    // NaN was taken for no deadline at all.
    expect((await refusal(Number.NaN)).message).toContain('got NaN; allowed: epoch ms at most 900000 ms from now');
    expect((await refusal('soon')).message).toContain('got "soon"; allowed:');
    expect((await refusal(Date.now() + 901_000)).field).toBe('deadline');
  });

  it('takes a deadline up to 15 minutes ahead, or one already passed', async () => {
    const records = [slotRecord({ id: 'o-1', sequenceNumber: '100' })];
    expect((await relayWith(new FakeSns()).relay(records, { deadline: Date.now() + 899_000 })).published).toBe(1);
    const passed = await relayWith(new FakeSns()).relay(records, { deadline: Date.now() - 1 });
    expect(passed.outcomes[0]).toMatchObject({ status: 'failed', reason: 'DEADLINE_REACHED' });
  });
});
