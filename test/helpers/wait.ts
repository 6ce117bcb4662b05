/**
 * Resolves once `condition` holds, checking it every few milliseconds; rejects with `what`
 * after `timeoutMs`. For state that has no event to wait on (counters, items in a table).
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  { timeoutMs = 10_000, what = 'the condition' }: { timeoutMs?: number; what?: string } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
