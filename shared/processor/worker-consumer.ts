import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import type { RelayResult } from '../relay/index.js';
import type { ConsumerContext } from './consumer-context.js';
import type { HeldLease } from './held-lease.js';
import type { Lease } from './lease.js';
import type { ProcessorSettings } from './settings.js';
import { parentsFinished } from './shard-sync.js';
import type { WorkerClock } from './worker-clock.js';
import { reportCutOff, reportFailure, reportGivenUp, reportOnFailureWriteFailed, reportTrimmed } from './worker-reports.js';
import type { ProcessorWorkerOptions } from './worker-types.js';

/** What a worker gives the consumers of its leases. */
export interface ConsumerHost {
  readonly options: ProcessorWorkerOptions;
  readonly settings: ProcessorSettings;
  /** Reading, lease scans and shard syncs: stopped when the worker begins stopping. */
  readonly clock: WorkerClock;
  /** The lease table as of the worker's last scan. */
  leases(): readonly Lease[];
  /** Counts records done with and reports them. */
  processed(shardId: string, records: readonly _Record[], result: RelayResult): void;
}

/**
 * The context of the consumer of `held`: its worker's stream, publisher, settings and clock, the
 * parents' state as of the worker's last lease scan, and reports to the worker's observer, each
 * naming the shard; with the worker's retry bounds, its failure policy.
 */
export function consumerContext(held: HeldLease, host: ConsumerHost): ConsumerContext {
  const { options, clock } = host;
  const { observer, retryBounds, onFailure } = options;
  const shardId = held.leaseKey;
  return {
    source: options.source,
    publisher: options.publisher,
    settings: host.settings,
    parentsFinished: () => parentsFinished(held.lease, host.leases()),
    stopping: clock.signal,
    stoppingFor: () => clock.stoppedFor(),
    sleep: (ms, signal) => clock.sleep(ms, signal),
    processed: (records, result) => host.processed(shardId, records, result),
    failed: (error, stalled) => reportFailure(observer, shardId, error, stalled),
    cutOff: (reason, unpublished) => reportCutOff(observer, shardId, reason, unpublished),
    checkpointFailed: (error) => observer?.error?.(`shard ${shardId}: checkpoint failed; retrying while the lease is held`, error),
    trimmed: (error) => reportTrimmed(observer, error),
    ...(retryBounds === undefined
      ? {}
      : {
          failures: {
            bounds: retryBounds,
            ...(onFailure === undefined ? {} : { write: onFailure }),
            gaveUp: (given, key) => reportGivenUp(observer, given, key),
            writeFailed: (error, given) => reportOnFailureWriteFailed(observer, given, error),
          },
        }),
  };
}
