import type { PublishBatchCommand } from '@aws-sdk/client-sns';
import { afterEach, describe, expect, it } from 'vitest';
import { processorSettings } from '../../shared/processor/index.js';
import { leaseExpiresAfterMs } from '../../shared/processor/settings.js';
import { StreamSource } from '../../shared/processor/stream-source.js';
import { Relay } from '../../shared/relay/index.js';
import { CountingPublisher, openPublishers } from '../helpers/counting-publisher.js';
import { FakeSqs } from '../helpers/fake-sns.js';
import { HangingLeaseStore, openHangingStores } from '../helpers/hanging-lease-store.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';
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
