import type { LeaseCoordinator } from './lease-coordinator.js';
import type { WorkerClock } from './worker-clock.js';

/** Where a loop reports a failed round; the loop itself carries on. */
type LoopFailed = (message: string, error: unknown) => void;

/**
 * Renews every `intervalMs` until `clock` stops; after a failed renewal, retries sooner, backing
 * off up to that interval, but never later than the moment a lease could expire in another
 * worker's eyes, so one that keeps failing is given up then, not up to an interval after. A round
 * is waited for at most until the next is due: a renewal that takes longer (throttled, retried by
 * the SDK) holds back no other lease's, as the next round renews every lease not still being renewed.
 */
export async function renewLoop(
  clock: WorkerClock,
  intervalMs: number,
  coordinator: Pick<LeaseCoordinator, 'msUntilExpiry' | 'renewAll'>,
  failed: LoopFailed,
  now: () => number = () => performance.now(),
): Promise<void> {
  let failures = 0;
  let roundStartedAt: number | undefined;
  while (!clock.stopped) {
    const pause = failures === 0 ? intervalMs : Math.min(intervalMs, 25 * 2 ** Math.min(failures, 16));
    const sinceRound = roundStartedAt === undefined ? 0 : now() - roundStartedAt;
    await clock.sleep(Math.max(0, Math.min(pause - sinceRound, coordinator.msUntilExpiry())));
    if (clock.stopped) return;
    roundStartedAt = now();
    const round = coordinator.renewAll().then(
      (renewed) => {
        failures = renewed ? 0 : failures + 1;
      },
      (error: unknown) => {
        failures++;
        failed('renewing leases failed; retrying', error);
      },
    );
    // The round's bound ends with it, so no timer outlives a quick round.
    const roundEnded = new AbortController();
    await Promise.race([round, clock.sleep(pause, roundEnded.signal)]);
    roundEnded.abort();
  }
}

/** Runs `task` every `ms` until `clock` stops; a failed run is reported and the next tick tries again. */
export async function everyTick(clock: WorkerClock, ms: number, task: () => Promise<void>, failed: LoopFailed): Promise<void> {
  while (!clock.stopped) {
    await clock.sleep(ms);
    if (clock.stopped) return;
    try {
      await task();
    } catch (error) {
      failed('lease or shard maintenance failed; retrying on the next tick', error);
    }
  }
}
