import type { FailedAttempts, Lease, LeaseStore } from '../../shared/processor/lease.js';
import { Gate } from './gate.js';

/** Every hanging lease table of the test, so a test that fails while one hangs does not leave its worker waiting. */
const hangingStores: HangingLeaseStore[] = [];

/**
 * One worker's view of a shared lease table; after `hang()` every call waits until `open()`, as
 * requests to an unreachable DynamoDB wait without a timeout, and then goes through.
 */
export class HangingLeaseStore implements LeaseStore {
  private readonly gate = new Gate();

  constructor(private readonly table: LeaseStore) {
    hangingStores.push(this);
  }

  hang(): void {
    this.gate.close();
  }

  open(): void {
    this.gate.open();
  }

  private async through<T>(call: () => Promise<T>): Promise<T> {
    await this.gate.passed();
    return call();
  }

  list = () => this.through(() => this.table.list());
  create = (leaseKey: string, parents: readonly string[]) => this.through(() => this.table.create(leaseKey, parents));
  renew = (lease: Lease, owner: string) => this.through(() => this.table.renew(lease, owner));
  take = (lease: Lease, owner: string) => this.through(() => this.table.take(lease, owner));
  checkpoint = (lease: Lease, owner: string, checkpoint: string) => this.through(() => this.table.checkpoint(lease, owner, checkpoint));
  recordFailure = (lease: Lease, owner: string, failed: FailedAttempts) =>
    this.through(() => this.table.recordFailure(lease, owner, failed));
  release = (lease: Lease, owner: string) => this.through(() => this.table.release(lease, owner));
  handOver = (lease: Lease, owner: string) => this.through(() => this.table.handOver(lease, owner));
  remove = (lease: Lease) => this.through(() => this.table.remove(lease));
}

/** Opens every lease table hanging, for an `afterEach`. */
export function openHangingStores(): void {
  for (const store of hangingStores.splice(0)) store.open();
}
