import { afterEach, describe, expect, it, vi } from 'vitest';
import { retryPauseMs, SHARD_FIRST_PAUSE_MS, WAITED_ON_FIRST_PAUSE_MS } from '../../shared/processor/retries.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('retryPauseMs: the processor’s one back-off', () => {
  it('pauses up to the first bound doubling at each retry, capped at retryMaxDelayMs', () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.999_999);
    const longest = (first: number) => [1, 2, 3, 4, 5, 6].map((retry) => retryPauseMs(retry, 1000, first));
    // A shard's reads, pages and checkpoints: 100 ms first; start-up steps and hand-over marks: 50 ms.
    expect(longest(SHARD_FIRST_PAUSE_MS)).toEqual([99, 199, 399, 799, 999, 999]);
    expect(longest(WAITED_ON_FIRST_PAUSE_MS)).toEqual([49, 99, 199, 399, 799, 999]);
    expect(retryPauseMs(1, 1000)).toBe(99);
  });

  it('spreads the pauses out (full jitter): none at all when the draw is 0', () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    expect(retryPauseMs(5, 1000)).toBe(0);
  });
});
