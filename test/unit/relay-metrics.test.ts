import { Logger } from '@aws-lambda-powertools/logger';
import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { createRelayHandler } from '../../shared/relay/handler.js';
import { RELAY_METRICS, Relay, relayMetrics } from '../../shared/relay/index.js';
import { FakeSns, FakeSqs } from '../helpers/fake-sns.js';
import { captureLogs } from '../helpers/logs.js';
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
    // The batch's line, then o-1's aggregate type's lag (the only one with events published) on a line of its own.
    expect(written).toHaveLength(2);
    expect(written[1]).toMatchObject({ [RELAY_METRICS.aggregateTypeDimension]: 'order', [RELAY_METRICS.lagByAggregateType]: 2_500 });
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

describe('relay logs', () => {
  it("carry the invocation's request id, function and cold start, from Lambda's context", async () => {
    const relay = new Relay({
      config,
      sns: new FakeSns(() => 'ok'),
      sqs: new FakeSqs(),
      topicArns: { 'orders.fifo': 'arn:aws:sns:us-east-1:000000000000:orders.fifo' },
      deadLetterQueueUrl: 'http://localhost/000000000000/relay-dlq',
    });
    const metrics = relayMetrics('orders-relay');
    captureEmf(metrics);
    const handler = createRelayHandler({ relay, logger: new Logger({ serviceName: 'outbox-relay', logLevel: 'INFO' }), metrics });
    const logs = captureLogs();
    try {
      await handler(
        { Records: [slotRecord({ id: 'o-1' })] },
        {
          awsRequestId: 'c6af9ac6-7b61-11e6-9a41-93e812345678',
          functionName: 'orders-relay',
          functionVersion: '$LATEST',
          invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:orders-relay',
          memoryLimitInMB: '512',
          getRemainingTimeInMillis: () => 60_000,
        },
      );
    } finally {
      logs.stop();
    }

    expect(logs.lines).toContainEqual(
      expect.objectContaining({
        message: 'batch relayed',
        function_request_id: 'c6af9ac6-7b61-11e6-9a41-93e812345678',
        function_name: 'orders-relay',
        function_arn: 'arn:aws:lambda:us-east-1:123456789012:function:orders-relay',
        cold_start: expect.any(Boolean),
      }),
    );
  });
});
