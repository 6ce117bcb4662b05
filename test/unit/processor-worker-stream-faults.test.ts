import { afterEach, describe, expect, it } from 'vitest';
import { isHealthy } from '../../shared/processor/health.js';
import { type ReadFailureReport, StreamCallTimeoutError } from '../../shared/processor/index.js';
import { StreamSource } from '../../shared/processor/stream-source.js';
import { CountingPublisher, openPublishers } from '../helpers/counting-publisher.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';
import { answerHungCalls, FaultyStreams } from '../helpers/processor-faulty-streams.js';
import { haltWorkers, recorder, SETTINGS, worker } from '../helpers/processor-worker.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';
import { waitFor } from '../helpers/wait.js';

afterEach(async () => {
  answerHungCalls();
  openPublishers();
  await haltWorkers();
});

/** A worker reading `streams`, its publisher, and what it reported. */
function reading(stream: SimulatedStream, streams: FaultyStreams) {
  const publisher = new CountingPublisher();
  const { seen, observer } = recorder();
  const readFailures: ReadFailureReport[] = [];
  const w = worker({
    source: new StreamSource(streams, stream.streamArn),
    leases: new MemoryLeaseStore(),
    publisher,
    workerId: 'A',
    observer: { ...observer, readFailed: (report) => readFailures.push(report) },
  });
  return { w, publisher, seen, readFailures };
}

describe('a shard whose iterators keep expiring', () => {
  it('renews an expired iterator at once, reporting nothing, when the renewed one reads', async () => {
    const stream = new SimulatedStream();
    const streams = new FaultyStreams(stream);
    const { w, publisher, seen, readFailures } = reading(stream, streams);
    await w.start();
    await waitFor(() => streams.calls.reads > 0, { what: 'the first read' });
    streams.expireReads = 1;
    await waitFor(() => streams.expireReads === 0, { what: 'a read of an expired iterator' });
    stream.commit({ type: 'order', id: 'a' }, 1, 1);
    await waitFor(() => publisher.published.size === 1, { what: 'the record' });
    expect({ readFailures, errors: seen.errors }).toEqual({ readFailures: [], errors: [] });
  });

  it('backs off and reports a failed read when a renewed iterator is expired too, instead of renewing it again at once', async () => {
    const stream = new SimulatedStream();
    const streams = new FaultyStreams(stream);
    const { w, readFailures, seen } = reading(stream, streams);
    await w.start();
    await waitFor(() => streams.calls.reads > 0, { what: 'the first read' });
    streams.expireReads = Number.POSITIVE_INFINITY;
    const before = { ...streams.calls };
    await waitFor(() => readFailures.length >= 3, { timeoutMs: 5000, what: 'three failed reads reported' });
    // Each failure: the refused read, a new iterator, its refused read; then a pause.
    const reads = streams.calls.reads - before.reads;
    expect(reads, JSON.stringify({ reads, reported: readFailures.length })).toBeLessThanOrEqual(2 * readFailures.length + 3);
    expect(seen.errors.at(-1)?.message).toMatch(/read or publish failed; retrying/);
  });
});

describe('a Streams call that never answers', () => {
  it('is given up after the failover time and reported as a failed read (so the lag rises), then retried', async () => {
    const stream = new SimulatedStream();
    const streams = new FaultyStreams(stream);
    const { w, publisher, seen, readFailures } = reading(stream, streams);
    await w.start();
    stream.commit({ type: 'order', id: 'a' }, 1, 1);
    await waitFor(() => publisher.published.size === 1, { what: 'the first record' });

    streams.hangReads();
    stream.commit({ type: 'order', id: 'a' }, 2, 1);
    await waitFor(() => readFailures.length > 0, { timeoutMs: 4 * SETTINGS.failoverMs, what: 'the hung read reported' });
    expect(readFailures[0]!.lagMs).toBeGreaterThanOrEqual(SETTINGS.failoverMs - 50);
    expect(seen.errors[0]!.error).toBeInstanceOf(StreamCallTimeoutError);
    expect(isHealthy(w.status(), SETTINGS.failoverMs)).toBe(true);

    streams.answerReads();
    await waitFor(() => publisher.published.size === 2, { what: 'the record written while reads hung' });
  });

  it('lets the worker stop: the read in flight is given up after the failover time', async () => {
    const stream = new SimulatedStream();
    const streams = new FaultyStreams(stream);
    const { w, seen } = reading(stream, streams);
    await w.start();
    await waitFor(() => streams.calls.reads > 0, { what: 'the first read' });
    streams.hangReads();
    const reads = streams.calls.reads;
    await waitFor(() => streams.calls.reads > reads, { what: 'a read that hangs' });
    let stopped = false;
    void w.stop().then(() => {
      stopped = true;
    });
    await waitFor(() => stopped, { timeoutMs: 4 * SETTINGS.failoverMs, what: 'the stop' });
    expect(seen.released).toEqual([stream.shards[0]!.id]);
  });
});
