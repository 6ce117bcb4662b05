import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import {
  ConfigError,
  createRelayHandler,
  RELAY_METRICS,
  Relay,
  type RelayBatchSummary,
  type RelayLogger,
  type RelayMetrics,
} from 'dynamodb-outbox/relay';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LAMBDA_FUNCTION_NAME_ENV } from '../../shared/relay/metrics.js';
import { FakeSns, FakeSqs } from '../helpers/fake-sns.js';
import { captureLogs, isMetricsLine } from '../helpers/logs.js';
import { config, deadLetterQueueUrl, topicArns } from '../helpers/relay-fixtures.js';
import { slotRecord } from '../helpers/stream-records.js';

const parts = { config, topicArns, deadLetterQueueUrl };
const silent = { info() {}, warn() {}, error() {} } satisfies RelayLogger;
const discard = { addMetric() {} } satisfies RelayMetrics;

beforeEach(() => {
  // The defaults write EMF lines; a test of them must see those lines.
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', undefined);
  vi.stubEnv('POWERTOOLS_DEV', undefined);
});

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('createRelayHandler options', () => {
  it("takes Powertools' Logger and Metrics for the narrow logger and metrics it writes to", () => {
    const logger: RelayLogger = new Logger({ logLevel: 'SILENT' });
    const metrics: RelayMetrics = new Metrics({ namespace: 'Test', serviceName: 'test' });
    const relay = new Relay({ ...parts, sns: new FakeSns(), sqs: new FakeSqs() });

    expect(typeof createRelayHandler({ relay, logger, metrics })).toBe('function');
  });

  it('rejects a relay given together with parts of another, naming them', () => {
    const relay = new Relay({ ...parts, sns: new FakeSns(), sqs: new FakeSqs() });
    // @ts-expect-error a relay and the parts of another are exclusive
    const both = () => createRelayHandler({ relay, config, sns: new FakeSns(), sqs: undefined });

    expect(both).toThrow(ConfigError);
    expect(both).toThrow('Invalid outbox config at relay: got a relay and also config, sns; allowed: a relay, or the parts to build one');
  });

  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['more than a Lambda function can have left', 2 ** 31],
  ])('refuses a context whose getRemainingTimeInMillis gives %s with a ConfigError, before anything is published', async (_, left) => {
    const sns = new FakeSns();
    const handler = createRelayHandler({ ...parts, sns, sqs: new FakeSqs(), logger: silent, metrics: discard });

    // NaN made AbortSignal.timeout throw a RangeError; past 2^31 - 1 ms the run's timer fired at once, over and over.
    await expect(handler({ Records: [slotRecord({ id: 'o-1' })] }, { getRemainingTimeInMillis: () => left })).rejects.toMatchObject({
      name: 'ConfigError',
      field: 'context.getRemainingTimeInMillis',
      message: expect.stringContaining(
        "allowed: the milliseconds the invocation has left, a finite number up to 900000 (a Lambda function's longest timeout)",
      ),
    });
    expect(sns.requests).toEqual([]);
  });

  it('rejects parts without the topic ARNs and the DLQ', () => {
    // @ts-expect-error the parts need the topic ARNs and the DLQ
    const incomplete = () => createRelayHandler({ config, sns: new FakeSns(), sqs: new FakeSqs() });

    expect(incomplete).toThrow(expect.objectContaining({ name: 'ConfigError', field: 'topicArns' }));
  });

  it('builds outside Lambda with the default logger and metrics: Powertools lines under the relay service, without the function-name dimension', async () => {
    vi.stubEnv(LAMBDA_FUNCTION_NAME_ENV, undefined);
    const handler = createRelayHandler({ ...parts, sns: new FakeSns(), sqs: new FakeSqs() });
    const logs = captureLogs((line) => 'level' in line || isMetricsLine(line));
    try {
      await expect(handler({ Records: [slotRecord({ id: 'o-1' })] })).resolves.toEqual({ batchItemFailures: [] });
    } finally {
      logs.stop();
    }

    expect(logs.lines).toContainEqual(expect.objectContaining({ message: 'batch relayed', service: RELAY_METRICS.service }));
    const emf = logs.lines.filter(isMetricsLine);
    // The batch's line, then the lag of its one aggregate type under a dimension of its own.
    expect(emf).toHaveLength(2);
    expect(emf[0]).toMatchObject({ service: RELAY_METRICS.service, [RELAY_METRICS.published]: 1 });
    expect(emf[0]).not.toHaveProperty(RELAY_METRICS.aggregateTypeDimension);
    expect(emf[1]).toMatchObject({
      [RELAY_METRICS.aggregateTypeDimension]: 'order',
      _aws: { CloudWatchMetrics: [{ Dimensions: [['service', RELAY_METRICS.aggregateTypeDimension]] }] },
    });
    expect(emf[0]).not.toHaveProperty(RELAY_METRICS.functionDimension);
    expect(emf[0]).toMatchObject({ _aws: { CloudWatchMetrics: [{ Namespace: RELAY_METRICS.namespace, Dimensions: [['service']] }] } });
  });

  it("names the function in the default metrics' dimension when Lambda sets AWS_LAMBDA_FUNCTION_NAME", async () => {
    vi.stubEnv(LAMBDA_FUNCTION_NAME_ENV, 'orders-relay');
    const handler = createRelayHandler({ ...parts, sns: new FakeSns(), sqs: new FakeSqs(), logger: silent });
    const logs = captureLogs(isMetricsLine);
    try {
      await handler({ Records: [slotRecord({ id: 'o-1' })] });
    } finally {
      logs.stop();
    }

    expect(logs.lines).toEqual([
      expect.objectContaining({
        [RELAY_METRICS.functionDimension]: 'orders-relay',
        _aws: expect.objectContaining({ CloudWatchMetrics: [expect.objectContaining({ Dimensions: [['service', 'functionName']] })] }),
      }),
      expect.objectContaining({
        [RELAY_METRICS.functionDimension]: 'orders-relay',
        _aws: expect.objectContaining({
          CloudWatchMetrics: [expect.objectContaining({ Dimensions: [['service', 'functionName', 'aggregateType']] })],
        }),
      }),
    ]);
  });

  it('rejects parts without an ARN for a configured topic with a ConfigError, when the handler is built', () => {
    const build = () =>
      createRelayHandler({ ...parts, topicArns: { payments: topicArns.payments }, sns: new FakeSns(), sqs: new FakeSqs() });

    expect(build).toThrow(ConfigError);
    expect(build).toThrow(expect.objectContaining({ field: 'topicArns.orders.fifo' }));
  });

  it('awaits onOutcome before it answers', async () => {
    const steps: string[] = [];
    const handler = createRelayHandler({
      ...parts,
      sns: new FakeSns(),
      sqs: new FakeSqs(),
      logger: silent,
      metrics: discard,
      onOutcome: async (summary: RelayBatchSummary) => {
        await new Promise((resolve) => setImmediate(resolve));
        steps.push(`outcome: ${summary.published} published`);
      },
    });

    await handler({ Records: [slotRecord({ id: 'o-1', events: 2 })] });
    steps.push('answered');

    expect(steps).toEqual(['outcome: 2 published', 'answered']);
  });

  it('fails the invocation when onOutcome throws, after the batch was published and its metrics written', async () => {
    const sns = new FakeSns();
    const added: string[] = [];
    const handler = createRelayHandler({
      ...parts,
      sns,
      sqs: new FakeSqs(),
      logger: silent,
      metrics: { addMetric: (name) => added.push(name) },
      onOutcome: () => {
        throw new Error('the caller failed');
      },
    });

    await expect(handler({ Records: [slotRecord({ id: 'o-1' })] })).rejects.toThrow('the caller failed');
    expect(sns.accepted).toHaveLength(1);
    expect(added).toContain(RELAY_METRICS.published);
  });
});
