import { Logger } from '@aws-lambda-powertools/logger';
import type { PublishBatchCommand, PublishBatchCommandOutput } from '@aws-sdk/client-sns';
import { afterEach, describe, expect, it } from 'vitest';
import {
  PROCESSOR_METRICS,
  type PublishCutOffReport,
  processorMetrics,
  processorObserver,
  processorSettings,
} from '../../shared/processor/index.js';
import { leaseExpiresAfterMs } from '../../shared/processor/settings.js';
import { StreamSource } from '../../shared/processor/stream-source.js';
import { Relay } from '../../shared/relay/index.js';
import { CountingPublisher, openPublishers, sequenceOf } from '../helpers/counting-publisher.js';
import { FakeSqs } from '../helpers/fake-sns.js';
import { HangingLeaseStore, openHangingStores } from '../helpers/hanging-lease-store.js';
import { captureLogs } from '../helpers/logs.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';
import { captureEmf } from '../helpers/metrics.js';
import { haltWorkers, recorder, SETTINGS, worker } from '../helpers/processor-worker.js';
import { config, deadLetterQueueUrl, topicArns } from '../helpers/relay-fixtures.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';
import { waitFor } from '../helpers/wait.js';

afterEach(async () => {
  openPublishers();
  openHangingStores();
  await haltWorkers();
});

/** An SNS whose requests never answer: only an abort ends them. */
class HangingSns {
  sent = 0;
  aborted = 0;
  inFlight = 0;
  send(_command: PublishBatchCommand, options?: { abortSignal?: AbortSignal }): Promise<never> {
    this.sent++;
    this.inFlight++;
    return new Promise<never>((_, reject) =>
      options?.abortSignal?.addEventListener('abort', () => {
        this.aborted++;
        this.inFlight--;
        reject(Object.assign(new Error('Request aborted'), { name: 'AbortError' }));
      }),
    );
  }
}

const relayOn = (sns: HangingSns) => new Relay({ config, sns, sqs: new FakeSqs(), topicArns, deadLetterQueueUrl });

describe('a page SNS never answers', () => {
  it('is cut short handOffTimeoutMs after stop() is called, not when the page next looks at the stop', async () => {
    const stream = new SimulatedStream();
    const sns = new HangingSns();
    const first = worker({
      source: new StreamSource(stream, stream.streamArn),
      leases: new MemoryLeaseStore(),
      publisher: relayOn(sns),
      workerId: 'A',
      // A page looks at the clock every leaseScanIntervalMs (4 s) while nothing else is due.
      settings: { failoverMs: 16_000, renewIntervalMs: 1000, leaseScanIntervalMs: 4000, handOffTimeoutMs: 100 },
    });
    await first.start();
    stream.commit({ type: 'order', id: 'hung' }, 1, 1);
    await waitFor(() => sns.inFlight === 1, { what: "A's publish to start" });

    const stopped = first.stop();
    await waitFor(() => sns.aborted === 1, { timeoutMs: 2000, what: 'the request in flight aborted 100 ms into the stop' });
    await stopped;
  });

  it('is cut short the moment the worker finds its lease taken, not when the cut-off next looks at the clock', async () => {
    const stream = new SimulatedStream();
    const shard = stream.shards[0]!.id;
    const leases = new MemoryLeaseStore();
    const sns = new HangingSns();
    /** Requests aborted when A reports the lease lost. */
    const abortedAtLoss: number[] = [];
    const first = worker({
      source: new StreamSource(stream, stream.streamArn),
      leases,
      publisher: relayOn(sns),
      workerId: 'A',
      observer: { leaseLost: () => abortedAtLoss.push(sns.aborted) },
      // The cut-off looks at the clock every leaseScanIntervalMs (4 s) while nothing else is due; renewals find a loss in 50 ms.
      settings: { failoverMs: 16_000, renewIntervalMs: 50, leaseScanIntervalMs: 4000 },
    });
    await first.start();
    stream.commit({ type: 'order', id: 'taken' }, 1, 1);
    await waitFor(() => sns.inFlight === 1, { what: "A's publish to start" });

    // Another worker steals the lease; A's next renewal finds it taken.
    await expect(leases.take(leases.rows.get(shard)!, 'B')).resolves.toMatchObject({ leaseOwner: 'B' });
    await waitFor(() => abortedAtLoss.length === 1, { timeoutMs: 2000, what: 'A to find the lease taken' });

    // Aborted as the lease was dropped, before the loss was even reported.
    expect(abortedAtLoss).toEqual([1]);
    expect([sns.sent, sns.inFlight]).toEqual([1, 0]);
  });

  it('is cut short once the worker has been stopping for handOffTimeoutMs, and the lease handed over with the record unpublished', async () => {
    const stream = new SimulatedStream();
    const shard = stream.shards[0]!.id;
    const leases = new MemoryLeaseStore();
    const sns = new HangingSns();
    const a = recorder();
    const first = worker({
      source: new StreamSource(stream, stream.streamArn),
      leases,
      publisher: relayOn(sns),
      workerId: 'A',
      observer: a.observer,
      settings: { handOffTimeoutMs: 300 },
    });
    await first.start();
    stream.commit({ type: 'order', id: 'hung' }, 1, 1);
    await waitFor(() => sns.inFlight === 1, { what: "A's publish to start" });

    await first.stop();

    expect(sns.aborted).toBe(1);
    expect(a.seen.released).toEqual([shard]);
    expect(leases.rows.get(shard)).toMatchObject({ checkpoint: 'TRIM_HORIZON' });
    expect(leases.rows.get(shard)!.leaseOwner).toBeUndefined();
    // The next holder publishes the record A could not.
    const publisher = new CountingPublisher();
    const second = worker({ source: new StreamSource(stream, stream.streamArn), leases, publisher, workerId: 'B' });
    await second.start();
    await waitFor(() => publisher.published.size === 1, { what: 'B to publish the record' });
  });

  it('is cut short once its lease may have expired, while the lease table hangs, before another worker may take it', async () => {
    const stream = new SimulatedStream();
    const shard = stream.shards[0]!.id;
    const table = new MemoryLeaseStore();
    const view = new HangingLeaseStore(table);
    const sns = new HangingSns();
    const a = recorder();
    const first = worker({
      source: new StreamSource(stream, stream.streamArn),
      leases: view,
      publisher: relayOn(sns),
      workerId: 'A',
      observer: a.observer,
    });
    await first.start();
    stream.commit({ type: 'order', id: 'cut-off' }, 1, 1);
    await waitFor(() => sns.inFlight === 1, { what: "A's publish to start" });

    view.hang();
    const hungAt = Date.now();
    await waitFor(() => sns.aborted === 1, { what: "A's publish to be cut short" });

    // Not before the lease could have expired in another worker's eyes.
    expect(Date.now() - hungAt).toBeGreaterThanOrEqual(leaseExpiresAfterMs(processorSettings(SETTINGS)) - SETTINGS.renewIntervalMs);
    await waitFor(() => a.seen.lost.includes(shard), { what: 'A to drop the lease' });
    expect(sns.sent).toBe(1);
    // The record was never checkpointed: the next holder publishes it.
    expect(table.rows.get(shard)).toMatchObject({ checkpoint: 'TRIM_HORIZON' });
  });
});

/** An SNS that records every request and answers each only when the test says so. */
class AnsweringSns {
  readonly requests: PublishBatchCommand[] = [];
  private readonly waiting: (() => void)[] = [];

  get unanswered(): number {
    return this.waiting.length;
  }

  send(command: PublishBatchCommand, options?: { abortSignal?: AbortSignal }): Promise<PublishBatchCommandOutput> {
    this.requests.push(command);
    const entries = command.input.PublishBatchRequestEntries ?? [];
    return new Promise((resolve, reject) => {
      const answer = (): void =>
        resolve({ Successful: entries.map((e) => ({ Id: e.Id, MessageId: `m-${e.Id}` })), Failed: [], $metadata: {} });
      this.waiting.push(answer);
      options?.abortSignal?.addEventListener('abort', () => {
        this.waiting.splice(this.waiting.indexOf(answer), 1);
        reject(Object.assign(new Error('Request aborted'), { name: 'AbortError' }));
      });
    });
  }

  /** Answers every request waiting, as a socket read does: no timer runs in between. */
  answerAll(): void {
    for (const answer of this.waiting.splice(0)) answer();
  }
}

/** Blocks the event loop for `ms`, as a long GC pause or CPU starvation does: no timer, no I/O runs meanwhile. */
function blockEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Busy: the point is that nothing else runs.
  }
}

describe('a worker whose event loop was blocked past the failover time', () => {
  it('sends no request once it resumes, though an answer was waiting and another worker took the lease meanwhile, and reports the cut-off first', async () => {
    const stream = new SimulatedStream();
    const shard = stream.shards[0]!.id;
    const leases = new MemoryLeaseStore();
    const sns = new AnsweringSns();
    const a = recorder();
    const reported: string[] = [];
    const cutOffs: PublishCutOffReport[] = [];
    const first = worker({
      source: new StreamSource(stream, stream.streamArn),
      leases,
      publisher: new Relay({ config, sns, sqs: new FakeSqs(), topicArns, deadLetterQueueUrl }),
      workerId: 'A',
      observer: {
        ...a.observer,
        publishCutOff: (report: PublishCutOffReport) => {
          cutOffs.push(report);
          reported.push('cut off');
        },
        leaseLost: (shardId: string) => {
          a.observer.leaseLost(shardId);
          reported.push('lease lost');
        },
      },
    });
    await first.start();
    // Two events of one aggregate: the second is sent once the first is answered.
    stream.commit({ type: 'order', id: 'paused' }, 2, 2);
    const record = stream.shards[0]!.records[0]!;
    await waitFor(() => sns.unanswered === 1, { what: "A's first request" });

    blockEventLoop(processorSettings(SETTINGS).failoverMs);
    // Another worker, in another process, takes the lease while A is blocked: A's last write is older than the failover time.
    await expect(leases.take(leases.rows.get(shard)!, 'B')).resolves.toMatchObject({ leaseOwner: 'B' });
    // A resumes with the first answer already waiting; its cut-off timer has not run yet.
    sns.answerAll();
    await waitFor(() => a.seen.lost.includes(shard), { what: 'A to give the lease up' });

    expect(sns.requests).toHaveLength(1);
    expect(leases.rows.get(shard)).toMatchObject({ leaseOwner: 'B', checkpoint: 'TRIM_HORIZON' });
    expect(reported).toEqual(['cut off', 'lease lost']);
    expect(cutOffs).toEqual([
      {
        shardId: shard,
        reason: expect.stringMatching(new RegExp(`^the lease of ${shard} may have expired: not written for \\d+ ms$`)),
        sequenceNumber: sequenceOf(record),
        records: 1,
        lagMs: expect.any(Number),
      },
    ]);
    // Reported as a cut-off, not as a failure to retry.
    expect(a.seen.errors).toEqual([]);
  });
});

describe('a page cut off, as processorObserver logs it', () => {
  it('is a warning naming the shard, the reason and the record the next holder resumes from, and its lag counts', () => {
    const metrics = processorMetrics('orders-leases');
    const emf = captureEmf(metrics);
    const logs = captureLogs();
    try {
      const observer = processorObserver(new Logger({ serviceName: 'outbox-processor' }), metrics);
      observer.publishCutOff?.({
        shardId: 'shard-1',
        reason: 'the lease of shard-1 may have expired: not written for 412 ms',
        sequenceNumber: '4200',
        records: 3,
        lagMs: 950,
      });
      observer.flush();
    } finally {
      logs.stop();
    }
    expect(logs.lines).toEqual([
      expect.objectContaining({
        level: 'WARN',
        message: 'publishing cut off; the records not published are left to the next holder',
        shardId: 'shard-1',
        reason: 'the lease of shard-1 may have expired: not written for 412 ms',
        sequenceNumber: '4200',
        records: 3,
        lagMs: 950,
      }),
    ]);
    expect(emf[0]).toMatchObject({ [PROCESSOR_METRICS.lag]: 950 });
  });
});
