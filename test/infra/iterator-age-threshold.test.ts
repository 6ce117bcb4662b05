import { App, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { OutboxAlarms } from '../../infra/outbox-alarms.js';
import { expectPropsError } from '../helpers/cdk.js';

/** The alarms of a relay, with that iterator-age threshold. */
function alarms(iteratorAgeThreshold: Duration) {
  const stack = new Stack(new App(), 'IteratorAge');
  new OutboxAlarms(stack, 'Alarms', {
    relayFunction: LambdaFunction.fromFunctionName(stack, 'Relay', 'orders-relay'),
    relayEventSourceMappingId: 'mapping-uuid',
    iteratorAgeThreshold,
  });
  return Template.fromStack(stack);
}

describe('iteratorAgeThreshold', () => {
  // A stream record expires after 24 hours, so IteratorAge never holds at 24 hours for the 3 minutes the alarm needs.
  it.each([Duration.hours(24), Duration.seconds(86_221)])('refuses %s, at which RelayIteratorAge could never fire', (threshold) => {
    expectPropsError(
      () => alarms(threshold),
      'iteratorAgeThreshold',
      `is ${threshold.toHumanString()}`,
      'allowed: whole seconds from 60 to 86220',
      'stream records expire after 24 hours',
    );
  });

  it('takes 24 hours less the 3 minutes the alarm must see', () => {
    const alarm = Object.values(alarms(Duration.seconds(86_220)).findResources('AWS::CloudWatch::Alarm')).find(
      (a) => a.Properties.MetricName === 'IteratorAge',
    );
    expect(alarm?.Properties).toMatchObject({ Threshold: 86_220_000, EvaluationPeriods: 3, DatapointsToAlarm: 3 });
  });
});
