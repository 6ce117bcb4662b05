import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { Outbox } from '../../infra/outbox.js';
import { OutboxAlarms } from '../../infra/outbox-alarms.js';
import { defineConfig, type OutboxConfig } from '../../shared/config.js';
import { PROCESSOR_METRICS } from '../../shared/processor/observability.js';
import { RELAY_METRICS } from '../../shared/relay/index.js';
import { appWithoutBundling } from '../helpers/cdk.js';

const baseConfig = {
  source: 'urn:test:infra',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }, { name: 'stock' }],
  routes: { order: 'orders.fifo', payment: 'payments', stock: 'stock' },
  lowLatencyAggregateTypes: ['stock'],
};

function synth(config?: OutboxConfig): Template {
  const stack = new Stack(new App(), 'LagAlarms');
  new OutboxAlarms(stack, 'Alarms', {
    relayFunction: LambdaFunction.fromFunctionName(stack, 'Relay', 'orders-relay'),
    relayEventSourceMappingId: 'mapping-uuid',
    ...(config === undefined ? {} : { config }),
  });
  return Template.fromStack(stack);
}

const lagAlarms = (template: Template) =>
  Object.values(template.findResources('AWS::CloudWatch::Alarm'))
    .map((a) => a.Properties as Record<string, unknown>)
    .filter((p) => p.MetricName === RELAY_METRICS.lagByAggregateType);

const dashboardBody = (template: Template): string =>
  JSON.stringify(Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0]!.Properties.DashboardBody);

describe('OutboxAlarms: relay lag per aggregate type', () => {
  it("creates one alarm per lagAlarmSeconds entry, on that type's lagByAggregateType maximum, threshold in ms, three minutes in a row", () => {
    const template = synth(defineConfig({ ...baseConfig, lagAlarmSeconds: { order: 20, payment: 300 } }));

    const alarms = lagAlarms(template);
    expect(alarms).toHaveLength(2);
    for (const [type, seconds] of [
      ['order', 20],
      ['payment', 300],
    ] as const) {
      expect(alarms).toContainEqual(
        expect.objectContaining({
          Namespace: RELAY_METRICS.namespace,
          Statistic: 'Maximum',
          Period: 60,
          Threshold: seconds * 1000,
          EvaluationPeriods: 3,
          DatapointsToAlarm: 3,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          TreatMissingData: 'notBreaching',
          Dimensions: expect.arrayContaining([
            { Name: RELAY_METRICS.aggregateTypeDimension, Value: type },
            // The imported function's name resolves from its ARN at deploy time.
            { Name: RELAY_METRICS.functionDimension, Value: expect.anything() },
            { Name: 'service', Value: RELAY_METRICS.service },
          ]),
          AlarmActions: [expect.anything()],
          OKActions: [expect.anything()],
        }),
      );
    }
  });

  it('charts the lag of every aggregate type the relay publishes, not the low-latency ones, with no alarm when none is configured', () => {
    const template = synth(defineConfig(baseConfig));

    expect(lagAlarms(template)).toEqual([]);
    const body = dashboardBody(template);
    expect(body).toContain('Relay lag per aggregate type, commit to published (ms)');
    expect(body).toContain(`\\"${RELAY_METRICS.aggregateTypeDimension}\\",\\"order\\"`);
    expect(body).toContain(`\\"${RELAY_METRICS.aggregateTypeDimension}\\",\\"payment\\"`);
    expect(body).not.toContain(`\\"${RELAY_METRICS.aggregateTypeDimension}\\",\\"stock\\"`);
  });

  it('adds no per-type chart without a config', () => {
    expect(dashboardBody(synth())).not.toContain(RELAY_METRICS.lagByAggregateType);
  });
});

describe('Outbox: lag per aggregate type', () => {
  it("passes its config to the alarms: the relay's per-type alarms and chart, and the processor's lag of each low-latency type", () => {
    const stack = new Stack(appWithoutBundling(), 'OutboxLag');
    new Outbox(stack, 'Outbox', { config: defineConfig({ ...baseConfig, lagAlarmSeconds: { payment: 45 } }) });
    const template = Template.fromStack(stack);

    expect(lagAlarms(template)).toEqual([expect.objectContaining({ Threshold: 45_000 })]);
    const body = dashboardBody(template);
    expect(body).toContain('Relay lag per aggregate type, commit to published (ms)');
    expect(body).toContain('Processor lag per aggregate type, commit to published (ms)');
    expect(body).toContain(
      `\\"${PROCESSOR_METRICS.lagByAggregateType}\\",\\"${PROCESSOR_METRICS.aggregateTypeDimension}\\",\\"stock\\",\\"${PROCESSOR_METRICS.leaseTableDimension}\\"`,
    );
  });
});
