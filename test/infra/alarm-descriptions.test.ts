import { App, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import type { LowLatencyProcessor } from '../../infra/low-latency-processor.js';
import { processorAlarmSpecs } from '../../infra/outbox-alarm-specs.js';
import { OutboxAlarms } from '../../infra/outbox-alarms.js';

/* An alarm fires when its metric reaches the threshold (GreaterThanOrEqualToThreshold): its description says so, with the value. */

function relayAlarms(iteratorAgeThreshold?: Duration) {
  const stack = new Stack(new App(), 'AlarmWords');
  new OutboxAlarms(stack, 'Alarms', {
    relayFunction: LambdaFunction.fromFunctionName(stack, 'Relay', 'orders-relay'),
    relayEventSourceMappingId: 'mapping-uuid',
    ...(iteratorAgeThreshold === undefined ? {} : { iteratorAgeThreshold }),
  });
  return Object.values(Template.fromStack(stack).findResources('AWS::CloudWatch::Alarm')).map(
    (a) => a.Properties as Record<string, unknown>,
  );
}

describe('alarm descriptions', () => {
  it.each([
    [undefined, 60],
    [Duration.seconds(90), 90],
  ])('RelayIteratorAge (threshold %s) fires at the threshold, and says the record waited that long or longer', (threshold, seconds) => {
    const alarm = relayAlarms(threshold).find((p) => p.MetricName === 'IteratorAge');

    expect(alarm).toMatchObject({ Threshold: seconds * 1000, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    expect(alarm?.AlarmDescription).toContain(`${seconds} s or more`);
    expect(alarm?.AlarmDescription).not.toMatch(/older than/);
  });

  it("RelayIteratorAge says what Lambda's IteratorAge measures: the age of a batch's last record, so every record of it waited that long", () => {
    const alarm = relayAlarms().find((p) => p.MetricName === 'IteratorAge');

    expect(alarm?.AlarmDescription).toContain("the last record of a relay batch (Lambda's IteratorAge) had waited 60 s or more");
    expect(alarm?.AlarmDescription).not.toMatch(/oldest record/);
  });

  it('ProcessorLag fires at the threshold, and says the records were published that long or longer after their commit', () => {
    const metric = new Metric({ namespace: 'test', metricName: 'm' });
    const processor = {
      metricLag: () => metric,
      metricRunningTaskCount: () => metric,
      metricOnFailureRecords: () => metric,
      metricOnFailureWriteFailures: () => metric,
    } as unknown as LowLatencyProcessor;

    const lag = processorAlarmSpecs(processor, Duration.seconds(30)).find((s) => s.id === 'ProcessorLag');

    expect(lag?.threshold).toBe(30_000);
    expect(lag?.options?.comparisonOperator).toBeUndefined();
    expect(lag?.description).toContain('30 s or more after their commit');
    expect(lag?.description).not.toMatch(/later than/);
  });
});
