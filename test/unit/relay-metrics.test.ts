import { Logger } from '@aws-lambda-powertools/logger';
import { describe, expect, it } from 'vitest';
import { createRelayHandler } from '../../functions/relay/create-handler.js';
import { defineConfig } from '../../shared/config.js';
import { RELAY_METRICS, Relay, relayMetrics } from '../../shared/relay/index.js';
import { FakeSns, FakeSqs } from '../helpers/fake-sns.js';
import { captureEmf } from '../helpers/metrics.js';
import { slotRecord } from '../helpers/stream-records.js';

const config = defineConfig({
  source: 'urn:test:unit',
  topics: [{ name: 'orders.fifo', fifo: true }],
  routes: { order: 'orders.fifo' },
  relay: { maxPublishAttempts: 3 },
});

describe('relay metrics', () => {
  it("land in the namespace and under the dimensions the construct's dashboard reads, function name included", async () => {
    // o-1 publishes, o-2 is rejected for good, o-3 fails transiently on every attempt.
    const sns = new FakeSns((entry) => {
      const subject = JSON.parse(entry.Message ?? '{}').subject;
      return subject === 'o-2' ? 'permanent' : subject === 'o-3' ? 'transient' : 'ok';
    });
    const relay = new Relay({
      config,
      sns,
      sqs: new FakeSqs(),
      topicArns: { 'orders.fifo': 'arn:aws:sns:us-east-1:000000000000:orders.fifo' },
      deadLetterQueueUrl: 'http://localhost/000000000000/relay-dlq',
      backoff: { baseDelayMs: 1, maxDelayMs: 2 },
    });
    const metrics = relayMetrics('orders-relay');
    const written = captureEmf(metrics);
    const records = [slotRecord({ id: 'o-1', events: 2 }), slotRecord({ id: 'o-2' }), slotRecord({ id: 'o-3' })];
    const createdMs = records[0]!.dynamodb!.ApproximateCreationDateTime! * 1000;
    const handler = createRelayHandler({ relay, logger: new Logger({ logLevel: 'SILENT' }), metrics, now: () => createdMs + 2_500 });

    const response = await handler({ Records: records });

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: records[2]!.dynamodb!.SequenceNumber }]);
    expect(written).toHaveLength(1);
    const names = [RELAY_METRICS.published, RELAY_METRICS.retried, RELAY_METRICS.deadLettered, RELAY_METRICS.failedRecords];
    expect(written[0]!._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: RELAY_METRICS.namespace,
        Dimensions: [['service', RELAY_METRICS.functionDimension]],
        Metrics: expect.arrayContaining([
          ...names.map((Name) => ({ Name, Unit: 'Count' })),
          { Name: RELAY_METRICS.lag, Unit: 'Milliseconds' },
        ]),
      },
    ]);
    expect(written[0]).toMatchObject({
      service: RELAY_METRICS.service,
      [RELAY_METRICS.functionDimension]: 'orders-relay',
      [RELAY_METRICS.published]: 2,
      // Two attempts after the first, for o-3's one event.
      [RELAY_METRICS.retried]: 2,
      [RELAY_METRICS.deadLettered]: 1,
      [RELAY_METRICS.failedRecords]: 1,
      [RELAY_METRICS.lag]: 2_500,
    });
  });
});
