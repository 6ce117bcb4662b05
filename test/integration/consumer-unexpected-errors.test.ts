import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ConsumerLogger, ConsumerMetrics } from '../../shared/consumer/types.js';
import { batchBody } from '../../shared/envelope.js';
import { batchCommitFixture, messages, statuses } from '../helpers/batch-commit.js';
import { anEnvelope } from '../helpers/envelopes.js';

const { applied, batchConsumer } = batchCommitFixture('consumer-unexpected-errors');

let unhandled: unknown[] = [];
const listener = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  unhandled = [];
  process.on('unhandledRejection', listener);
});
afterEach(() => {
  process.off('unhandledRejection', listener);
  vi.restoreAllMocks();
});
// Node reports a rejection nobody handled once the microtasks have run: one turn of the event loop.
const noUnhandledRejection = async () => {
  await new Promise((resolve) => setImmediate(resolve));
  expect(unhandled).toEqual([]);
};

/** A metrics sink that records each metric it is given, and throws on the `nth` `EventsProcessed`. */
const metricsThrowingAt = (nth: number, broken: Error) => {
  const added: string[] = [];
  let processed = 0;
  const metrics: ConsumerMetrics = {
    addMetric: (name) => {
      added.push(name);
      if (name === 'EventsProcessed' && ++processed === nth) throw broken;
    },
  };
  return { metrics, added };
};

describe("consumer, commit: 'event', an error no outcome stands for", () => {
  it('fails only the message whose metrics sink threw, keeps the others, logs it once, and its redelivery is a duplicate', async () => {
    const broken = new Error('metrics sink down');
    const { metrics, added } = metricsThrowingAt(2, broken);
    const { consumer, logs } = batchConsumer('event-metrics', { commit: 'event', metrics });
    const events = ['a0', 'a1', 'a2'].map((aggregateId) => anEnvelope({ aggregateId }));

    const { outcomes, batchItemFailures } = await consumer.process(messages(events.map((e) => e.body)));

    expect(statuses(outcomes)).toEqual(['processed', 'failed', 'processed']);
    expect(outcomes[1]).toMatchObject({ eventId: events[1]?.id, error: broken });
    expect(batchItemFailures).toEqual([{ itemIdentifier: 'm1' }]);
    const lines = logs.filter((l) => l.level === 'error' && l.message.startsWith('Running or reporting a message failed unexpectedly'));
    expect(lines.map((l) => l.attributes)).toEqual([expect.objectContaining({ messageIds: ['m1'], error: broken })]);
    // The sink that threw is not asked to count the message it failed.
    expect(added).not.toContain('FailedMessages');
    await noUnhandledRejection();
    // m1's effect was committed before its outcome was reported: delivered again, it is skipped.
    const again = await consumer.process(messages([events[1]?.body as string]));
    expect(statuses(again.outcomes)).toEqual(['duplicate']);
    expect(await applied('event-metrics', 'a1')).toBe(1);
  });

  it('keeps every outcome and counts the failures when the logger throws too, its lines going to console.error', async () => {
    const fallback = vi.spyOn(console, 'error').mockImplementation(() => {});
    const logger: ConsumerLogger = {
      info: () => {},
      warn: () => {
        throw new Error('logger down');
      },
      error: () => {
        throw new Error('logger down');
      },
    };
    const { consumer, counts } = batchConsumer(
      'event-logger',
      { commit: 'event', logger },
      {
        'order.shipped': {
          handle: () => {
            throw new Error('handler failed');
          },
        },
      },
    );
    const placed = anEnvelope({ aggregateId: 'b0' });
    const shipped = anEnvelope({ aggregateId: 'b1', type: 'order.shipped' });

    const later = anEnvelope({ aggregateId: 'b1', sequence: 2 });

    const { outcomes } = await consumer.process(messages([placed.body, 'not json', shipped.body, later.body], ['a', 'b', 'c', 'c']));

    expect(statuses(outcomes)).toEqual(['processed', 'rejected', 'failed', 'skipped']);
    expect(outcomes[2]).toMatchObject({ error: { message: 'handler failed' } });
    // Each failure, rejection and skip, whose log line threw before it was counted, is counted once.
    expect(counts.get('FailedMessages')).toBe(1);
    expect(counts.get('RejectedMessages')).toBe(1);
    expect(counts.get('SkippedMessages')).toBe(1);
    expect(fallback.mock.calls.map(([line]) => line)).toEqual(
      Array(3).fill(expect.stringMatching(/^Running or reporting a message failed unexpectedly/)),
    );
    await noUnhandledRejection();
  });
});

describe.each(['event', 'batch'] as const)("consumer, commit: '%s', an unexpected error in a batch message", (commit) => {
  it('fails the message naming the event whose outcome was being reported, not the next one', async () => {
    const broken = new Error('metrics sink down');
    const { metrics } = metricsThrowingAt(1, broken);
    const { consumer } = batchConsumer(`ce-batch-${commit}`, { commit, metrics });
    const events = [1, 2].map((sequence) => anEnvelope({ aggregateId: `d-${commit}`, sequence }));

    const { outcomes } = await consumer.process(messages([batchBody(events.map((e) => e.body))]));

    expect(outcomes).toEqual([expect.objectContaining({ status: 'failed', eventId: events[0]?.id, error: broken })]);
  });
});

describe("consumer, commit: 'batch', messages an unexpected error fails", () => {
  it('counts them as FailedMessages when the metrics sink is not what threw', async () => {
    const logger: ConsumerLogger = {
      info: (message) => {
        if (message.startsWith('Duplicate event')) throw new Error('logger down');
      },
      warn: () => {},
      error: () => {},
    };
    const { consumer, counts } = batchConsumer('batch-logger', { logger });
    const seen = anEnvelope({ aggregateId: 'c0' });
    await consumer.process(messages([seen.body]));
    counts.clear();

    // The duplicate's report throws as the group settles: it and the new event's message, not settled yet, fail.
    const { outcomes } = await consumer.process(messages([seen.body, anEnvelope({ aggregateId: 'c1' }).body]));

    expect(statuses(outcomes)).toEqual(['failed', 'failed']);
    expect(counts.get('FailedMessages')).toBe(2);
    await noUnhandledRejection();
  });
});
