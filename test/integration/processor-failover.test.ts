import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { DynamoDbLeaseTable } from '../../shared/processor/index.js';
import { Outbox, type WrittenEvent } from '../../shared/write.js';
import { deliveryReport } from '../helpers/delivery.js';
import { type ProcessorProcess, spawnProcessor } from '../helpers/processor-process.js';
import { freshLeaseTable } from '../helpers/processor-stack.js';
import { type RelayTestStack, startRelayStack, subscriberQueue } from '../helpers/relay-stack.js';

const config = defineConfig({
  source: 'urn:test:failover',
  topics: [{ name: 'payments.fifo', fifo: true }],
  routes: { payment: 'payments.fifo' },
  lowLatencyAggregateTypes: ['payment'],
});
const PAYMENTS = subscriberQueue('payments.fifo');
/** Short for the test; production uses the 10 s default. */
const FAILOVER_MS = 3000;
/**
 * Scheduling margin on top of each bound: the take's own write, this test's 25 ms polling of
 * the lease table, and slack for three Node processes and DynamoDB Local sharing two cores.
 */
const MARGIN_MS = 500;

let stack: RelayTestStack;
let leases: DynamoDbLeaseTable;
const workers: ProcessorProcess[] = [];

beforeAll(async () => {
  stack = await startRelayStack(config);
  leases = new DynamoDbLeaseTable(stack.clients.document, await freshLeaseTable(stack));
});

afterAll(async () => {
  for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
  await Promise.all(workers.map((w) => w.exited));
  await stack?.stop();
});

/** The shard's owner, as the lease table says. */
const owner = async (): Promise<string | undefined> => (await leases.list())[0]?.leaseOwner;

/** Waits until the lease has an owner other than `previous`; returns it and how long it took. */
async function takeover(previous: string, since: number, boundMs: number): Promise<{ next: string; elapsedMs: number }> {
  await expect.poll(async () => [undefined, previous].includes(await owner()), { timeout: boundMs, interval: 25 }).toBe(false);
  return { next: (await owner())!, elapsedMs: Date.now() - since };
}

describe('three processor processes on one stream', () => {
  it('loses nothing when the owner is killed (taken over within the failover time) or stopped (within 1 s)', async () => {
    for (const workerId of ['w1', 'w2', 'w3']) {
      workers.push(
        spawnProcessor(stack, config, {
          workerId,
          leaseTableName: leases.tableName,
          dynamodbEndpoint: inject('dynamodbEndpoint'),
          failoverMs: FAILOVER_MS,
        }),
      );
    }
    await Promise.all(workers.map((w) => w.started));
    await expect.poll(owner, { timeout: 10_000 }).toMatch(/^w[123]$/);

    const outbox = new Outbox({ config, tableName: stack.tableName, client: stack.clients.dynamodb });
    const committed: WrittenEvent[] = [];
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        const result = await outbox.write({
          events: [{ aggregate: { type: 'payment', id: `p-${i % 5}` }, type: 'payment.changed', data: { i } }],
        });
        committed.push(...result.events);
        // Paces the load at roughly 50 commits/s so the stream stays busy across both hand-overs.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const received = () => new Set(stack.envelopes(PAYMENTS).map((e) => e.id)).size;
    await expect.poll(received, { timeout: 10_000 }).toBeGreaterThan(20);

    const first = (await owner())!;
    const killedAt = Date.now();
    workers.find((w) => w.workerId === first)!.child.kill('SIGKILL');
    const afterKill = await takeover(first, killedAt, FAILOVER_MS + MARGIN_MS);
    expect(afterKill.elapsedMs).toBeLessThanOrEqual(FAILOVER_MS + MARGIN_MS);
    const flowing = received();
    await expect.poll(received, { timeout: 10_000 }).toBeGreaterThan(flowing + 20);

    const second = workers.find((w) => w.workerId === afterKill.next)!;
    const stoppedAt = Date.now();
    second.child.kill('SIGTERM');
    const afterStop = await takeover(afterKill.next, stoppedAt, 1000 + MARGIN_MS);
    expect(afterStop.elapsedMs).toBeLessThanOrEqual(1000 + MARGIN_MS);
    expect(afterStop.next).not.toBe(first);
    await expect(second.exited).resolves.toBe(0);

    writing = false;
    await writer;
    await expect.poll(received, { timeout: 30_000, interval: 100 }).toBe(committed.length);
    const report = deliveryReport(
      committed.map((e) => ({
        id: e.id,
        type: e.type,
        aggregateType: e.aggregate.type,
        aggregateId: e.aggregate.id,
        sequence: e.sequence,
      })),
      stack.envelopes(PAYMENTS),
    );
    expect(report.missing).toEqual([]);
    expect(report.unexpected).toEqual([]);
    expect(report.outOfOrder).toEqual([]);
  });
});
