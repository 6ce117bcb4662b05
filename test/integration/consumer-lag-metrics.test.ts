import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CONSUMER_LAG_DIMENSION,
  CONSUMER_LAG_METRIC,
  consumerMetrics,
  createConsumer,
  OTHER_EVENT_TYPE,
} from '../../shared/consumer/consumer.js';
import { anEnvelope, anSqsEvent, anSqsRecord, TEST_SOURCE } from '../helpers/envelopes.js';
import { freshTable, testClients } from '../helpers/local.js';
import { captureEmf } from '../helpers/metrics.js';

const clients = testClients();
let tableName: string;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'consumer-lag'));
});

afterAll(() => clients.destroy());

/** An outbox message of `type`, committed at `time` (the envelope's `time`, which the write helper sets at commit). */
const committedAt = (type: string, aggregateId: string, time: number) => {
  const { body } = anEnvelope({ type, aggregateId });
  return anSqsRecord(JSON.stringify({ ...JSON.parse(body), time: new Date(time).toISOString() }));
};

/** A consumer with a handler that does nothing for each of `types`, its clock at `now`, and the EMF lines its metrics write. */
function lagConsumer(name: string, types: readonly string[], now: number) {
  const metrics = consumerMetrics(name, { AWS_LAMBDA_FUNCTION_NAME: 'lag-fn' });
  const written = captureEmf(metrics);
  const consumer = createConsumer({
    name,
    sources: [TEST_SOURCE],
    handlers: Object.fromEntries(types.map((type) => [type, { handle: () => {} }])),
    inbox: { document: clients.document, tableName },
    metrics,
    now: () => now,
  });
  return { consumer, written };
}

describe('consumer lag per event type', () => {
  it('writes HandledLag per handled event type, the oldest commit of each in the batch, on lines apart from the counts; duplicates add none', async () => {
    const base = Date.now();
    const { consumer, written } = lagConsumer('lag-projection', ['order.placed', 'order.paid'], base + 4_000);
    const event = anSqsEvent([
      committedAt('order.placed', 'o-1', base - 1_000),
      committedAt('order.placed', 'o-2', base - 3_000),
      committedAt('order.paid', 'o-3', base),
    ]);

    expect((await consumer.handler(event)).batchItemFailures).toEqual([]);

    expect(written).toHaveLength(3);
    expect(written[0]).toMatchObject({ EventsProcessed: [1, 1, 1] });
    expect(written[0]).not.toHaveProperty(CONSUMER_LAG_DIMENSION);
    expect(written[0]).not.toHaveProperty(CONSUMER_LAG_METRIC);
    const lagLines = written.slice(1);
    for (const line of lagLines) {
      expect(line._aws.CloudWatchMetrics).toEqual([
        {
          Namespace: 'DynamoDbOutbox',
          Dimensions: [['service', 'functionName', CONSUMER_LAG_DIMENSION]],
          Metrics: [{ Name: CONSUMER_LAG_METRIC, Unit: 'Milliseconds' }],
        },
      ]);
      expect(line).toMatchObject({ service: 'lag-projection', functionName: 'lag-fn' });
    }
    expect(lagLines.map((line) => [line[CONSUMER_LAG_DIMENSION], line[CONSUMER_LAG_METRIC]])).toEqual([
      ['order.placed', 7_000],
      ['order.paid', 4_000],
    ]);

    written.length = 0;
    expect((await consumer.handler(event)).batchItemFailures).toEqual([]);
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({ DuplicateEvents: [1, 1, 1] });
  });

  it('writes a handled type CloudWatch cannot take as a dimension value as other, keeping its line valid', async () => {
    const base = Date.now();
    const { consumer, written } = lagConsumer('lag-ascii', ['commande.créée', 'order.paid'], base + 4_000);

    const event = anSqsEvent([committedAt('commande.créée', 'c-1', base - 1_000), committedAt('order.paid', 'c-2', base)]);
    expect((await consumer.handler(event)).batchItemFailures).toEqual([]);

    expect(written.slice(1).map((line) => [line[CONSUMER_LAG_DIMENSION], line[CONSUMER_LAG_METRIC]])).toEqual([
      [OTHER_EVENT_TYPE, 5_000],
      ['order.paid', 4_000],
    ]);
  });

  it('writes no HandledLag to a metrics sink that cannot add a dimension', async () => {
    const added: string[] = [];
    const consumer = createConsumer({
      name: 'lag-plain-sink',
      sources: [TEST_SOURCE],
      handlers: { 'order.placed': { handle: () => {} } },
      inbox: { document: clients.document, tableName },
      metrics: { addMetric: (name) => added.push(name), publishStoredMetrics: () => {} },
    });

    await consumer.handler(anSqsEvent([committedAt('order.placed', 'o-9', Date.now())]));

    expect(added).toEqual(['EventsProcessed']);
  });
});
