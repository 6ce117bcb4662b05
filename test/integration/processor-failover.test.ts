import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { DynamoDbLeaseTable } from '../../shared/processor/lease-table.js';
import { Outbox, type WrittenEvent } from '../../shared/write/index.js';
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
 * How long the test waits for a takeover. Generous on purpose: how soon a worker takes a dead
 * owner's lease is bounded on a fake clock (test/unit/processor-leases.test.ts) and measured by
 * `npm run bench:latency`; here three Node processes and DynamoDB Local share the machine.
 */
const TAKEOVER_TIMEOUT_MS = 4 * FAILOVER_MS;

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

/** Waits until the lease has an owner other than `previous`, and returns it. */
async function takeover(previous: string): Promise<string> {
  await expect.poll(async () => [undefined, previous].includes(await owner()), { timeout: TAKEOVER_TIMEOUT_MS, interval: 25 }).toBe(false);
  return (await owner())!;
}

describe('three processor processes on one stream', () => {
  it('loses nothing when the owner is killed (its lease taken once expired) or stopped (its lease released on exit)', async () => {
    for (const workerId of ['w1', 'w2', 'w3']) {
      workers.push(
        await spawnProcessor(stack, config, {
          workerId,
          leaseTableName: leases.tableName,
          dynamodbEndpoint: inject('dynamodbEndpoint'),
          failoverMs: FAILOVER_MS,
          metrics: true,
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
    workers.find((w) => w.workerId === first)!.child.kill('SIGKILL');
    // A killed owner never releases its lease: another worker takes it once it has expired.
    const next = await takeover(first);
    const flowing = received();
    await expect.poll(received, { timeout: 10_000 }).toBeGreaterThan(flowing + 20);

    const second = workers.find((w) => w.workerId === next)!;
    second.child.kill('SIGTERM');
    await expect(second.exited).resolves.toBe(0);
    // A graceful stop releases the lease before the process exits, so nobody waits for it to expire.
    expect(await owner()).not.toBe(next);
    // ... and writes out the metrics gathered since the last periodic flush (which also carries
    // the lease gauges; this one does not).
    const stopping = second.output.findIndex((line) => line.includes('"stopping: handing leases over"'));
    expect(stopping).toBeGreaterThanOrEqual(0);
    const emf = second.output.slice(stopping).flatMap((line) => {
      try {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        return '_aws' in parsed ? [parsed] : [];
      } catch {
        return [];
      }
    });
    expect(emf.filter((metrics) => 'records' in metrics && !('leasesHeld' in metrics))).toHaveLength(1);
    expect(await takeover(next)).not.toBe(first);

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
