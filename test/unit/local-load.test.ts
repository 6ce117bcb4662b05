import { describe, expect, it } from 'vitest';
import { checkLoadRate, startLoad } from '../../shared/local/stack/load.js';
import type { LoadCounters } from '../../shared/local/stack/stats.js';
import { waitFor } from '../helpers/wait.js';

describe('load generator', () => {
  it('sends requests and counts 2xx as succeeded, 4xx as rejected, 5xx and failures as errors', async () => {
    const counters: LoadCounters = { sent: 0, succeeded: 0, rejected: 0, errors: 0, skipped: 0 };
    const answers = [201, 409, 503, 'no answer'] as const;
    let calls = 0;
    const load = startLoad({
      rate: 400,
      counters,
      step: async () => {
        const answer = answers[calls++ % answers.length] as (typeof answers)[number];
        if (typeof answer === 'string') throw new Error(answer);
        return answer;
      },
    });

    await waitFor(() => counters.sent >= 40, { timeoutMs: 5000, what: '40 requests sent' });
    await load.stop();

    expect(calls).toBe(counters.sent);
    expect(counters.succeeded + counters.rejected + counters.errors).toBe(counters.sent);
    expect(counters.succeeded).toBe(Math.ceil(counters.sent / 4));
    expect(counters.rejected).toBe(Math.ceil((counters.sent - 1) / 4));
    expect(counters.errors).toBe(Math.ceil((counters.sent - 2) / 4) + Math.ceil((counters.sent - 3) / 4));
  });

  it('skips and counts the skipped requests rather than piling up when the API falls behind', async () => {
    const counters: LoadCounters = { sent: 0, succeeded: 0, rejected: 0, errors: 0, skipped: 0 };
    const pending: (() => void)[] = [];
    const load = startLoad({
      rate: 1000,
      counters,
      maxInFlight: 3,
      step: () => new Promise<number>((resolve) => pending.push(() => resolve(200))),
    });

    await waitFor(() => counters.skipped >= 20, { timeoutMs: 5000, what: '20 requests skipped' });
    const inFlightWhileBehind = pending.length;
    const sentWhileBehind = counters.sent;
    for (const release of pending.splice(0)) release();
    await load.stop();

    expect(inFlightWhileBehind).toBe(3);
    expect(sentWhileBehind).toBe(3);
    expect(counters.succeeded).toBe(counters.sent);
  });

  it.each([0, 0.05, -1, Number.NaN, 1001])('rejects the rate %s, naming what is allowed', (rate) => {
    expect(() => checkLoadRate(rate)).toThrow(/allowed: a number of requests per second from 0.1 up to 1000/);
  });
});
