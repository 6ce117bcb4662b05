import { afterEach, describe, expect, it } from 'vitest';
import { serializeConfig } from '../../shared/config.js';
import { EnvironmentError } from '../../shared/errors.js';
import { RELAY_ENV } from '../../shared/event-source.js';
import { isHealthy, STARTING_HEALTHY_MS } from '../../shared/processor/health.js';
import {
  PROCESSOR_ENV,
  ProcessorOptionsError,
  processorEnvironment,
  startHealthServer,
  type WorkerStatus,
} from '../../shared/processor/index.js';
import { monotonicNow } from '../../shared/processor/worker-clock.js';
import { openPublishers } from '../helpers/counting-publisher.js';
import { testConfig } from '../helpers/factories.js';
import { haltWorkers, SETTINGS, workerOnFlakyLeases } from '../helpers/processor-worker.js';
import { waitFor } from '../helpers/wait.js';

const status = (overrides: Partial<WorkerStatus> = {}): WorkerStatus => ({
  workerId: 'w1',
  state: 'running',
  leases: ['shard-1'],
  leasesInTable: 1,
  lastScanAt: Date.now(),
  recordsProcessed: 0,
  eventsPublished: 0,
  ...overrides,
});

describe('processor health', () => {
  it('is healthy while running and the lease table was read within the failover time', () => {
    const now = 1_000_000;
    expect(isHealthy(status({ lastScanAt: now - 9_000 }), 10_000, now)).toBe(true);
    expect(isHealthy(status({ lastScanAt: now - 11_000 }), 10_000, now)).toBe(false);
    expect(isHealthy(status({ state: 'stopped', lastScanAt: now }), 10_000, now)).toBe(false);
  });

  it('is healthy through a hand-off of any length, scans stopped: ECS, which sent SIGTERM, bounds it with stopTimeout', () => {
    const now = 1_000_000;
    // 90 s into a stop (handOffTimeoutMs), the last scan long before: nine failover times.
    expect(isHealthy(status({ state: 'stopping', lastScanAt: now - 90_000 }), 10_000, now)).toBe(true);
    expect(isHealthy(status({ state: 'stopping', lastScanAt: 0 }), 10_000, now, now - STARTING_HEALTHY_MS - 1)).toBe(true);
  });

  it('is healthy while starting, for a while: a start that never gets through ends in a replaced task', () => {
    const since = 1_000_000;
    const starting = status({ state: 'starting', lastScanAt: 0 });
    expect(isHealthy(starting, 10_000, since + 60_000, since)).toBe(true);
    expect(isHealthy(starting, 10_000, since + STARTING_HEALTHY_MS, since)).toBe(true);
    expect(isHealthy(starting, 10_000, since + STARTING_HEALTHY_MS + 1, since)).toBe(false);
  });

  it('answers 200 with the status while healthy (running, then draining) and 503 once not', async () => {
    let current = status();
    const server = await startHealthServer(() => current, 10_000, 0);
    try {
      const ok = await fetch(`http://127.0.0.1:${server.port}/health`);
      expect(ok.status).toBe(200);
      expect(await ok.json()).toMatchObject({ healthy: true, workerId: 'w1', leases: ['shard-1'] });
      current = status({ state: 'stopping', lastScanAt: Date.now() - 60_000 });
      const draining = await fetch(`http://127.0.0.1:${server.port}/health`);
      expect(draining.status).toBe(200);
      expect(await draining.json()).toMatchObject({ healthy: true, state: 'stopping' });
      current = status({ state: 'stopped' });
      expect((await fetch(`http://127.0.0.1:${server.port}/health`)).status).toBe(503);
      expect((await fetch(`http://127.0.0.1:${server.port}/other`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});

describe('processor health through a hand-off', () => {
  afterEach(async () => {
    openPublishers();
    await haltWorkers();
  });

  it('answers 200 while a page in flight holds the stop past the failover time, and 503 once stopped', async () => {
    const { stream, publisher, w } = await workerOnFlakyLeases();
    const server = await startHealthServer(() => w.status(), SETTINGS.failoverMs, 0);
    const health = async () => (await fetch(`http://127.0.0.1:${server.port}/health`)).status;
    try {
      publisher.hold();
      stream.commit({ type: 'order', id: 'o1' }, 1, 1);
      await waitFor(() => publisher.inFlight === 1, { what: 'a page in flight' });
      const stopped = w.stop();
      // The stopping worker scans no more: its last scan ages past the failover time.
      const { lastScanAt } = w.status();
      await waitFor(() => monotonicNow() - lastScanAt > 2 * SETTINGS.failoverMs, {
        what: 'two failover times since the last scan',
      });
      expect(w.status()).toMatchObject({ state: 'stopping', lastScanAt });
      expect(await health()).toBe(200);
      publisher.open();
      await stopped;
      expect(await health()).toBe(503);
    } finally {
      await server.close();
    }
  });
});

describe('processor environment', () => {
  const env = {
    [RELAY_ENV.config]: serializeConfig(testConfig({ lowLatencyAggregateTypes: ['payment'] })),
    [RELAY_ENV.topicArns]: JSON.stringify({
      'orders.fifo': 'arn:aws:sns:us-east-1:000000000000:orders.fifo',
      payments: 'arn:aws:sns:us-east-1:000000000000:payments',
    }),
    [RELAY_ENV.deadLetterQueueUrl]: 'http://localhost/000000000000/relay-dlq',
    [PROCESSOR_ENV.streamArn]: 'arn:aws:dynamodb:us-east-1:000000000000:table/outbox/stream/2025-01-01T00:00:00.000',
    [PROCESSOR_ENV.leaseTable]: 'outbox-leases',
    [PROCESSOR_ENV.failedBatchBucket]: 'outbox-failed-batches',
    [PROCESSOR_ENV.failoverMs]: '6000',
  };

  it('reads the stream, the lease table, the failed-batch bucket and the settings', () => {
    expect(processorEnvironment(env)).toMatchObject({
      streamArn: env[PROCESSOR_ENV.streamArn],
      leaseTableName: 'outbox-leases',
      failedBatchBucket: 'outbox-failed-batches',
      healthPort: 8080,
      settings: { failoverMs: 6000 },
    });
  });

  it('rejects a missing lease table variable by name', () => {
    const { [PROCESSOR_ENV.leaseTable]: _, ...missing } = env;
    expect(() => processorEnvironment(missing)).toThrow(EnvironmentError);
    expect(() => processorEnvironment(missing)).toThrow(/OUTBOX_LEASE_TABLE: is not set/);
  });

  it('rejects a missing failed-batch bucket by name: a deployed processor never runs without an on-failure destination', () => {
    const { [PROCESSOR_ENV.failedBatchBucket]: _, ...missing } = env;
    expect(() => processorEnvironment(missing)).toThrow(EnvironmentError);
    expect(() => processorEnvironment(missing)).toThrow(/OUTBOX_FAILED_BATCH_BUCKET: is not set/);
  });

  it.each(['not a url', 'relay-dlq', 'sqs.us-east-1.amazonaws.com/0/relay-dlq'])(
    'rejects the relay DLQ URL %j at start-up, naming the variable, before any client is built',
    (url) => {
      const read = () => processorEnvironment({ ...env, [RELAY_ENV.deadLetterQueueUrl]: url });
      expect(read).toThrow(EnvironmentError);
      expect(read).toThrow(
        `OUTBOX_RELAY_DLQ_URL: got ${JSON.stringify(url)}, which is not an http:// or https:// URL with a host; allowed: the URL of a standard SQS queue (not FIFO)`,
      );
    },
  );

  it.each(['0', '70000'])('rejects health port %s, naming the variable, the value and the allowed range', (port) => {
    expect(() => processorEnvironment({ ...env, [PROCESSOR_ENV.healthPort]: port })).toThrow(EnvironmentError);
    expect(() => processorEnvironment({ ...env, [PROCESSOR_ENV.healthPort]: port })).toThrow(
      `OUTBOX_PROCESSOR_HEALTH_PORT: got "${port}"; allowed: a whole number from 1 to 65535`,
    );
  });

  it('rejects an out-of-range failover time naming the variable, keeping the settings error as the cause', () => {
    const read = () => processorEnvironment({ ...env, [PROCESSOR_ENV.failoverMs]: '100' });
    expect(read).toThrow(EnvironmentError);
    expect(read).toThrow('Environment variable OUTBOX_PROCESSOR_FAILOVER_MS: got 100; allowed: a whole number from 200 to 600000');
    try {
      read();
    } catch (error) {
      expect((error as Error).cause).toBeInstanceOf(ProcessorOptionsError);
    }
  });

  it('rejects idle delays that cross, naming the variables that set them', () => {
    expect(() => processorEnvironment({ ...env, [PROCESSOR_ENV.idleMinDelayMs]: '50', [PROCESSOR_ENV.idleMaxDelayMs]: '20' })).toThrow(
      'Environment variable OUTBOX_PROCESSOR_IDLE_MAX_DELAY_MS: got 20; allowed: a whole number from 50 to 60000',
    );
    // The maximum is the default here: both variables that bear on it are named.
    expect(() => processorEnvironment({ ...env, [PROCESSOR_ENV.idleMinDelayMs]: '500' })).toThrow(
      'Environment variable OUTBOX_PROCESSOR_FAILOVER_MS, OUTBOX_PROCESSOR_IDLE_MIN_DELAY_MS: idleMaxDelayMs (its default; OUTBOX_PROCESSOR_IDLE_MAX_DELAY_MS is unset) got 100;',
    );
  });

  it("reads the hand-off timeout, for a task whose stop timeout is shorter than the construct's", () => {
    expect(PROCESSOR_ENV.handOffTimeoutMs).toBe('OUTBOX_PROCESSOR_HAND_OFF_TIMEOUT_MS');
    expect(processorEnvironment({ ...env, OUTBOX_PROCESSOR_HAND_OFF_TIMEOUT_MS: '25000' }).settings).toEqual({
      failoverMs: 6000,
      handOffTimeoutMs: 25_000,
    });
    expect(processorEnvironment(env).settings).not.toHaveProperty('handOffTimeoutMs');
  });

  it.each([
    ['0', 'Environment variable OUTBOX_PROCESSOR_HAND_OFF_TIMEOUT_MS: got 0; allowed: a whole number from 1 to 3600000'],
    ['3600001', 'Environment variable OUTBOX_PROCESSOR_HAND_OFF_TIMEOUT_MS: got 3600001; allowed: a whole number from 1 to 3600000'],
    ['25s', /OUTBOX_PROCESSOR_HAND_OFF_TIMEOUT_MS: got "25s"; allowed: a whole number/],
  ])('rejects hand-off timeout %j at start-up, naming the variable, the value and what is allowed', (value, message) => {
    const read = () => processorEnvironment({ ...env, OUTBOX_PROCESSOR_HAND_OFF_TIMEOUT_MS: value });
    expect(read).toThrow(EnvironmentError);
    expect(read).toThrow(message);
  });

  it('rejects a failover time that is not a whole number, saying what is allowed', () => {
    expect(() => processorEnvironment({ ...env, [PROCESSOR_ENV.failoverMs]: '3s' })).toThrow(
      /OUTBOX_PROCESSOR_FAILOVER_MS: got "3s"; allowed: a whole number/,
    );
  });
});
