import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isHealthy } from '../../shared/processor/health.js';
import {
  processorMetrics,
  processorObserver,
  type ReadFailureReport,
  startHealthServer,
  type WorkerStatus,
} from '../../shared/processor/index.js';
import { StreamSource } from '../../shared/processor/stream-source.js';
import { CountingPublisher } from '../helpers/counting-publisher.js';
import { HangingLeaseStore } from '../helpers/hanging-lease-store.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';
import { captureEmf } from '../helpers/metrics.js';
import { answerHungCalls, FaultyStreams } from '../helpers/processor-faulty-streams.js';
import { haltWorkers, SETTINGS, worker } from '../helpers/processor-worker.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';
import { waitFor } from '../helpers/wait.js';

const HOUR_MS = 3_600_000;

/** Steps the wall clock (`Date`) as NTP may, leaving the monotonic clock (`performance`) and the timers as they run. */
function stepWallClock(ms: number): void {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  vi.setSystemTime(Date.now() + ms);
}

afterEach(async () => {
  vi.useRealTimers();
  answerHungCalls();
  await haltWorkers();
});

/** A started worker on a simulated stream, whose lease table the test can make hang and whose Streams calls it counts. */
async function running() {
  const stream = new SimulatedStream();
  const streams = new FaultyStreams(stream);
  const leases = new HangingLeaseStore(new MemoryLeaseStore());
  const readFailures: ReadFailureReport[] = [];
  const w = worker({
    source: new StreamSource(streams, stream.streamArn),
    leases,
    publisher: new CountingPublisher(),
    workerId: 'A',
    observer: { readFailed: (report) => readFailures.push(report) },
  });
  await w.start();
  return { w, leases, streams, readFailures };
}

describe('a wall clock stepped by NTP', () => {
  it('makes no worker whose lease table reads hang look healthy when it is stepped back', async () => {
    const { w, leases } = await running();
    leases.hang();
    await waitFor(() => !isHealthy(w.status(), SETTINGS.failoverMs), { what: 'the worker unhealthy, its scans hanging' });
    stepWallClock(-HOUR_MS);
    expect(isHealthy(w.status(), SETTINGS.failoverMs)).toBe(false);
    leases.open();
  });

  it('makes no healthy worker look unhealthy when it is stepped forward', async () => {
    const { w } = await running();
    expect(isHealthy(w.status(), SETTINGS.failoverMs)).toBe(true);
    stepWallClock(HOUR_MS);
    expect(isHealthy(w.status(), SETTINGS.failoverMs)).toBe(true);
  });

  it('does not end the time a start may take when it is stepped forward', async () => {
    const starting: WorkerStatus = {
      workerId: 'A',
      state: 'starting',
      leases: [],
      leasesInTable: 0,
      lastScanAt: 0,
      recordsProcessed: 0,
      eventsPublished: 0,
    };
    const server = await startHealthServer(() => starting, SETTINGS.failoverMs, 0);
    try {
      stepWallClock(HOUR_MS);
      expect((await fetch(`http://127.0.0.1:${server.port}/health`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('does not hold back the periodic shard sync when it is stepped back', async () => {
    const { streams } = await running();
    stepWallClock(-HOUR_MS);
    const before = streams.calls.describe;
    await waitFor(() => streams.calls.describe >= before + 2, {
      timeoutMs: 50 * SETTINGS.shardSyncIntervalMs,
      what: 'two more shard syncs, every shardSyncIntervalMs',
    });
  });

  it('does not add the step to the lag of a failed read when it is stepped forward', async () => {
    const { streams, readFailures } = await running();
    await waitFor(() => streams.calls.reads > 0, { what: 'the first read' });
    streams.hangReads();
    stepWallClock(HOUR_MS);
    await waitFor(() => readFailures.length > 0, { timeoutMs: 10 * SETTINGS.failoverMs, what: 'the hung read reported' });
    expect(readFailures[0]!.lagMs).toBeGreaterThanOrEqual(SETTINGS.failoverMs - 50);
    expect(readFailures[0]!.lagMs).toBeLessThan(HOUR_MS);
  });

  it('does not hold back the metrics flush when it is stepped back', () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    const metrics = processorMetrics('orders-leases');
    const published = captureEmf(metrics);
    const observer = processorObserver(new Logger({ logLevel: 'SILENT' }), metrics, 10_000);
    observer.batch?.({ shardId: 's1', records: 3, published: 3, ignored: 0, lagMs: 40 });
    vi.setSystemTime(Date.now() - HOUR_MS);
    vi.advanceTimersByTime(10_000);
    observer.leaseScan?.({ held: 1, total: 1 });
    expect(published).toHaveLength(1);
    expect(published[0]).toMatchObject({ records: 3, lag: 40 });
  });
});
