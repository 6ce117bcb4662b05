import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsumer } from '../../shared/consumer/consumer.js';
import { SequenceTracker } from '../../shared/consumer/sequence-tracker.js';
import { anEnvelope, TEST_EPOCH, TEST_SOURCE } from '../helpers/envelopes.js';
import { freshTable, testClients } from '../helpers/local.js';
import { losingFirstAnswerOf } from '../helpers/lost-response.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';

// The tracker's update is applied, its answer lost, and the SDK sends it again: the retry's
// condition fails on the position its own first attempt wrote.
const clients = testClients();
let tableName: string;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'consumer-sequence-lost'));
});

afterAll(() => clients.destroy());

const position = (aggregateId: string, sequence: number, sequenceepoch = TEST_EPOCH) => ({
  aggregatetype: 'order',
  subject: aggregateId,
  sequenceepoch,
  aggregatesequence: sequence,
});

/** A tracker on a client whose first UpdateItem is applied but answered with a reset connection. */
const losingTracker = () => new SequenceTracker('lost-answer', { document: losingFirstAnswerOf('UpdateItemCommand'), tableName }, 3600);
const tracker = () => new SequenceTracker('lost-answer', { document: clients.document, tableName }, 3600);

describe('SequenceTracker: an update whose answer was lost and that the SDK sent again', () => {
  it('says first for the first event of an aggregate, not out of order behind itself', async () => {
    expect(await losingTracker().observe(position('lost-first', 1))).toEqual({ status: 'first' });
  });

  it('says in order for the next event', async () => {
    await tracker().observe(position('lost-next', 1));
    expect(await losingTracker().observe(position('lost-next', 2))).toEqual({ status: 'in-order' });
  });

  it('still reports the gap its first attempt found', async () => {
    await tracker().observe(position('lost-gap', 1));
    expect(await losingTracker().observe(position('lost-gap', 4))).toEqual({
      status: 'gap',
      last: { epoch: TEST_EPOCH, sequence: 1 },
      received: { epoch: TEST_EPOCH, sequence: 4 },
      missing: 2,
    });
  });

  it('says a replayed event advanced the position', async () => {
    await tracker().observe(position('lost-replay', 1));
    expect(await losingTracker().observe(position('lost-replay', 2), { replayed: true })).toEqual({ status: 'replayed', advanced: true });
  });

  it('still reports an event that is out of order, and a second delivery of the same event', async () => {
    await tracker().observe(position('lost-late', 3));
    expect(await losingTracker().observe(position('lost-late', 2))).toMatchObject({ status: 'out-of-order' });
    // Another observation of the position recorded (a duplicate, or another worker) is no write of this one.
    expect(await tracker().observe(position('lost-late', 3))).toMatchObject({ status: 'out-of-order' });
  });
});

describe('consumer with sequenceTracking: a lost answer of the tracker', () => {
  it('counts no out-of-order event and logs no warning', async () => {
    const telemetry = recordingTelemetry();
    const consumer = createConsumer({
      name: 'lost-answer-consumer',
      sources: [TEST_SOURCE],
      handlers: { 'order.placed': { handle: () => {} } },
      inbox: { document: losingFirstAnswerOf('UpdateItemCommand'), tableName },
      sequenceTracking: true,
      logger: telemetry.logger,
      metrics: telemetry.metrics,
    });
    const event = anEnvelope({ aggregateId: 'lost-answer-consumer', sequence: 1 });

    const { outcomes } = await consumer.process([{ messageId: 'm1', body: event.body }]);

    expect(outcomes[0]).toMatchObject({ status: 'processed' });
    expect(telemetry.counts.get('SequenceOutOfOrder') ?? 0).toBe(0);
    expect(telemetry.logs.filter((log) => log.level !== 'info')).toEqual([]);
  });
});
