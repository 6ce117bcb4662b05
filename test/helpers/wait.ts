import { vi } from 'vitest';

/**
 * Resolves once `condition` holds, checking it every 20 ms; rejects naming `what` after
 * `timeoutMs`. For state that has no event to wait on (counters, items in a table).
 * A thin wrapper over `vi.waitFor` that keeps the failure message descriptive.
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  { timeoutMs = 10_000, what = 'the condition' }: { timeoutMs?: number; what?: string } = {},
): Promise<void> {
  await vi.waitFor(
    async () => {
      if (!(await condition())) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    },
    { timeout: timeoutMs, interval: 20 },
  );
}
