import type { Lease } from '../../shared/processor/lease.js';
import { MemoryLeaseStore } from './memory-lease-store.js';

const transient = (): Error =>
  Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), { name: 'ThrottlingException' });

/** A lease table whose next renewals or checkpoints fail with a throttling error, as DynamoDB's may. */
export class FlakyLeaseStore extends MemoryLeaseStore {
  renewFailures = 0;
  checkpointFailures = 0;

  override async renew(lease: Lease, owner: string): Promise<Lease> {
    if (this.renewFailures > 0) {
      this.renewFailures--;
      throw transient();
    }
    return super.renew(lease, owner);
  }

  override async checkpoint(lease: Lease, owner: string, checkpoint: string): Promise<Lease> {
    if (this.checkpointFailures > 0) {
      this.checkpointFailures--;
      throw transient();
    }
    return super.checkpoint(lease, owner, checkpoint);
  }
}
