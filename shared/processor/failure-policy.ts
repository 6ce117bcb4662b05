import type { GivenUpRecords, OnFailureWriter } from './on-failure-writer.js';
import type { RetryBounds } from './retry-budget.js';

/** How a consumer bounds a failing record: the same bounds and destination as the Lambda path's. */
export interface FailurePolicy {
  /** The config's `relay.maxRetryAttempts` and `relay.maxRecordAgeSeconds` (-1: no limit). */
  readonly bounds: RetryBounds;
  /** Writes the records given up on. Without it, a record whose bounds are spent is retried on, reported at every attempt. */
  readonly write?: OnFailureWriter;
  /** The records were written to the on-failure destination under `key`; the shard goes on past them. */
  gaveUp(given: GivenUpRecords, key: string): void;
  /** Writing them failed; the write is retried, and the shard waits for it (nothing is skipped unwritten). */
  writeFailed(error: unknown, given: GivenUpRecords): void;
}

/**
 * Writes records given up on with `write`, retrying a failed write (each one
 * reported through `writeFailed`, with `pause(failures)` between) for as long as `active()` holds:
 * the one wait a failing record may cause beyond its bounds, as nothing is checkpointed past
 * unwritten. `false` when the consumer must stop first, or `signal` aborts (the write in flight
 * with it); the records then stay for the next holder.
 *
 * @example
 * ```ts
 * if (await writeGivenUp(write, policy, given, { active: () => !stopping, pause: (n) => sleep(50 * 2 ** n) })) checkpoint(last);
 * ```
 */
export async function writeGivenUp(
  write: OnFailureWriter,
  policy: Pick<FailurePolicy, 'gaveUp' | 'writeFailed'>,
  given: GivenUpRecords,
  {
    active,
    pause,
    signal,
  }: { readonly active: () => boolean; readonly pause: (failures: number) => Promise<void>; readonly signal?: AbortSignal },
): Promise<boolean> {
  for (let failures = 1; ; failures++) {
    if (!active() || signal?.aborted === true) return false;
    try {
      const key = await write(given, signal);
      policy.gaveUp(given, key);
      return true;
    } catch (error) {
      policy.writeFailed(error, given);
      await pause(failures);
    }
  }
}
