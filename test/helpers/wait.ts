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

/**
 * Settles as `promise` does, or rejects naming `what` once `ms` of real time have passed without
 * it settling. For one awaited result (a call that must not hang); the timer is cleared as soon as
 * the promise settles and never holds the process open.
 */
export function settlesWithin<T>(promise: Promise<T>, ms: number, what = 'an answer'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
