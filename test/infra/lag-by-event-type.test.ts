import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { Outbox } from '../../infra/outbox.js';
import { OutboxAlarms } from '../../infra/outbox-alarms.js';
import { OutboxTable } from '../../infra/outbox-table.js';
import { OutboxTopics } from '../../infra/outbox-topics.js';
import { RelayFunction } from '../../infra/relay-function.js';
import { defineConfig, type OutboxConfig, type OutboxConfigInput } from '../../shared/config.js';
import { RELAY_ENV } from '../../shared/event-source.js';
import { PROCESSOR_METRICS } from '../../shared/processor/observability.js';
import { RELAY_METRICS } from '../../shared/relay/index.js';
import { appWithoutBundling, expectPropsError } from '../helpers/cdk.js';

const baseConfig: OutboxConfigInput = {
  source: 'urn:test:infra',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'stock' }],
  routes: { order: 'orders.fifo', stock: 'stock' },
  lowLatencyAggregateTypes: ['stock'],
};
const catalog = { 'order.placed': { version: 1 }, 'stock.reserved': { version: 1 } };

function synthAlarms(config: OutboxConfig): string {
  const stack = new Stack(new App(), 'LagByEventType');
  new OutboxAlarms(stack, 'Alarms', {
    relayFunction: LambdaFunction.fromFunctionName(stack, 'Relay', 'orders-relay'),
    relayEventSourceMappingId: 'mapping-uuid',
    config,
  });
  return dashboardBody(Template.fromStack(stack));
}

const dashboardBody = (template: Template): string =>
  JSON.stringify(Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0]!.Properties.DashboardBody);

describe('OutboxAlarms: lag per event type on the dashboard', () => {
  it("charts the relay's lagByEventType of its function by a search over both dimensions when the config declares event types", () => {
    const body = synthAlarms(defineConfig({ ...baseConfig, eventTypes: catalog }));

    expect(body).toContain('Relay lag per event type, commit to published (ms)');
    expect(body).toContain(
      `SEARCH('{${RELAY_METRICS.namespace},${RELAY_METRICS.aggregateTypeDimension},${RELAY_METRICS.eventTypeDimension},${RELAY_METRICS.functionDimension},service} MetricName=\\\\\\"${RELAY_METRICS.lagByEventType}\\\\\\" service=\\\\\\"${RELAY_METRICS.service}\\\\\\" ${RELAY_METRICS.functionDimension}=\\\\\\"`,
    );
    // The imported function's name is a token, resolved at deploy between the search's filter and its statistic.
    expect(body).toContain(`:function:orders-relay`);
    expect(body).toContain(`', 'Maximum', 60)`);
  });

  it('adds no lag-per-event-type chart when the config declares no event types', () => {
    const body = synthAlarms(defineConfig(baseConfig));

    expect(body).toContain('Relay lag per aggregate type');
    expect(body).not.toContain(RELAY_METRICS.lagByEventType);
  });

  it("charts the processor's lagByEventType under its lease table in an Outbox with low-latency types and a catalog", () => {
    const stack = new Stack(appWithoutBundling(), 'OutboxLagByEventType');
    new Outbox(stack, 'Outbox', { config: defineConfig({ ...baseConfig, eventTypes: catalog }) });
    const body = dashboardBody(Template.fromStack(stack));

    expect(body).toContain('Relay lag per event type, commit to published (ms)');
    expect(body).toContain('Processor lag per event type, commit to published (ms)');
    expect(body).toContain(
      `SEARCH('{${PROCESSOR_METRICS.namespace},${PROCESSOR_METRICS.aggregateTypeDimension},${PROCESSOR_METRICS.eventTypeDimension},${PROCESSOR_METRICS.leaseTableDimension},service} MetricName=\\\\\\"${PROCESSOR_METRICS.lagByEventType}\\\\\\" service=\\\\\\"${PROCESSOR_METRICS.service}\\\\\\" ${PROCESSOR_METRICS.leaseTableDimension}=\\\\\\"`,
    );
  });
});

/** One topic, one aggregate type, and `n` declared event types named with `length` characters each. */
const catalogOf = (n: number, length: number) =>
  defineConfig({
    source: 'urn:example:shop',
    topics: [{ name: 'orders' }],
    routes: { order: 'orders' },
    eventTypes: Object.fromEntries(
      Array.from({ length: n }, (_, i) => [`order.${String(i).padStart(length - 6, '0')}`, { version: 1, aggregateType: 'order' }]),
    ),
  });

function buildRelay(config: OutboxConfig) {
  const stack = new Stack(appWithoutBundling(), 'DynamoDbOutbox', { env: { account: '111111111111', region: 'eu-west-1' } });
  const table = new OutboxTable(stack, 'Table').table;
  const topics = new OutboxTopics(stack, 'Topics', { config });
  return new RelayFunction(stack, 'Relay', { config, table, topics });
}

describe("RelayFunction: the declared event types' names in Lambda's 4 KB environment", () => {
  it('builds a relay whose config holds the names of 40 declared event types of 30 characters', () => {
    const relay = buildRelay(catalogOf(40, 30));
    const held = JSON.parse(relay.outboxFunction.environment[RELAY_ENV.config] as string);
    expect(Object.keys(held.eventTypes)).toHaveLength(40);
  });

  it('rejects at synth a catalog whose names would take the relay environment past 4 KB, naming the remedy', () => {
    expectPropsError(
      () => buildRelay(catalogOf(90, 30)),
      'config',
      'makes a Lambda environment of up to',
      `${RELAY_ENV.config} `,
      'allowed: at most 4096 bytes',
      "the declared event types' names (90 here)",
      'declare fewer or shorter event type names',
    );
  });
});
