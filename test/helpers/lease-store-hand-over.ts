import { expect, it } from 'vitest';
import { LeaseLostError } from '../../shared/processor/index.js';
import type { Lease, LeaseStore } from '../../shared/processor/lease.js';

/** A fresh lease store with one lease, `shard-1`, that worker A holds (`held`, as A's take left it). */
export type StoreWithLease = () => Promise<{ table: LeaseStore; held: Lease }>;

/**
 * The hand-over mark's semantics, as every lease store must have them: the same tests pin the
 * DynamoDB lease table (on DynamoDB Local) and the in-memory store the unit tests and benches use.
 */
export function handOverMarkTests(storeWithLease: StoreWithLease): void {
  it('is set by the owner as a write (the counter one up), kept by its renewals and checkpoints, and listed', async () => {
    const { table, held } = await storeWithLease();

    const marked = await table.handOver(held, 'A');
    expect(marked).toMatchObject({ leaseOwner: 'A', leaseCounter: held.leaseCounter + 1, handingOver: true });
    const renewed = await table.renew(marked, 'A');
    const checkpointed = await table.checkpoint(renewed, 'A', '000123');

    expect(checkpointed).toMatchObject({ leaseCounter: held.leaseCounter + 3, checkpoint: '000123', handingOver: true });
    expect(await table.list()).toEqual([checkpointed]);
  });

  it('is cleared by the release, and by a take (a new owner hands nothing over)', async () => {
    const released = await storeWithLease();
    await released.table.release(await released.table.handOver(released.held, 'A'), 'A');
    const [free] = await released.table.list();
    expect(free).not.toHaveProperty('handingOver');
    expect(free?.leaseOwner).toBeUndefined();

    const taken = await storeWithLease();
    const marked = await taken.table.handOver(taken.held, 'A');
    // After the owner died while stopping, say: its lease expired and B takes it.
    const byB = await taken.table.take(marked, 'B');
    expect(byB).toMatchObject({ leaseOwner: 'B', leaseCounter: marked.leaseCounter + 1 });
    expect(byB).not.toHaveProperty('handingOver');
    expect((await taken.table.list())[0]).not.toHaveProperty('handingOver');
  });

  it('is refused as a lost lease to a worker that no longer holds the lease, and writes nothing', async () => {
    const { table, held } = await storeWithLease();
    const byB = (await table.take(held, 'B'))!;

    await expect(table.handOver(held, 'A')).rejects.toBeInstanceOf(LeaseLostError);
    await expect(table.handOver(byB, 'A')).rejects.toBeInstanceOf(LeaseLostError);
    expect(await table.list()).toEqual([byB]);
  });
}
