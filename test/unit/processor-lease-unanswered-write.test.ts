import { describe, expect, it } from 'vitest';
import { LeaseLostError } from '../../shared/processor/errors.js';
import { HeldLease } from '../../shared/processor/held-lease.js';
import type { Lease } from '../../shared/processor/lease.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';

/** A lease table whose next renewal is applied but never answered, as a write whose every SDK attempt timed out after the first landed. */
class UnansweredRenewal extends MemoryLeaseStore {
  unanswered = 0;

  override async renew(lease: Lease, owner: string): Promise<Lease> {
    const renewed = await super.renew(lease, owner);
    if (this.unanswered > 0) {
      this.unanswered--;
      throw Object.assign(new Error('Request timed out'), { name: 'TimeoutError' });
    }
    return renewed;
  }
}

async function heldBy(store: UnansweredRenewal, owner: string): Promise<HeldLease> {
  await store.create('shard-1', []);
  const [lease] = await store.list();
  const taken = await store.take(lease!, owner);
  return new HeldLease(store, owner, taken!);
}

describe('a lease write after an earlier one applied without an answer', () => {
  it('is written on the lease as that write left it, instead of calling the lease lost', async () => {
    const store = new UnansweredRenewal();
    const held = await heldBy(store, 'A');
    store.unanswered = 1;
    await expect(held.renew()).rejects.toThrow(/timed out/);

    await held.checkpoint('000100');
    expect(held.lost).toBe(false);
    expect(store.rows.get('shard-1')).toMatchObject({ leaseOwner: 'A', checkpoint: '000100' });
    await held.release();
    expect(store.rows.get('shard-1')?.leaseOwner).toBeUndefined();
  });

  it('still finds the lease lost when another worker took it meanwhile', async () => {
    const store = new UnansweredRenewal();
    const held = await heldBy(store, 'A');
    store.unanswered = 1;
    await expect(held.renew()).rejects.toThrow(/timed out/);
    const [lease] = await store.list();
    await store.take(lease!, 'B');

    await expect(held.checkpoint('000100')).rejects.toBeInstanceOf(LeaseLostError);
    expect(held.lost).toBe(true);
    expect(store.rows.get('shard-1')).toMatchObject({ leaseOwner: 'B', checkpoint: 'TRIM_HORIZON' });
  });
});
