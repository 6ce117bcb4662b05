import { startProcessor } from '../../processor/index.js';
import type { LocalClients } from '../clients.js';
import { createLeaseTable } from './lease-table.js';
import type { LocalProcessorDeps, LocalWorker } from './types.js';

/** The low-latency processor's lease table in DynamoDB Local. */
export const LOCAL_LEASE_TABLE = 'outbox-leases';

/** Creates the lease table the local processor uses, unless it is there (persisted data). */
export async function createLocalLeaseTable(clients: LocalClients): Promise<string> {
  await createLeaseTable(clients.dynamodb, LOCAL_LEASE_TABLE);
  return LOCAL_LEASE_TABLE;
}

/**
 * The real low-latency stream processor in this process, as the ECS task runs it, without its
 * logs and metrics: its errors go to `onError`, with what it was doing.
 *
 * @example
 * ```ts
 * const worker = await startLocalProcessor(deps, (what, error) => console.error(what, error));
 * await worker.stop();
 * ```
 */
export function startLocalProcessor(deps: LocalProcessorDeps, onError: (what: string, error: unknown) => void): Promise<LocalWorker> {
  return startProcessor({
    ...deps,
    workerId: `local-${process.pid}`,
    observer: { error: onError },
  });
}
