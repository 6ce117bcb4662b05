import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { OutboxAlarms } from '../../infra/outbox-alarms.js';
import { MAX_ALARMS_PER_WIDGET } from '../../infra/private/alarm-status-widgets.js';

/** The dashboard's alarm-status widgets: title and the logical ids of the alarms each shows. */
function statusWidgets(template: Template): { title: string; alarms: string[] }[] {
  const body = Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0]!.Properties.DashboardBody;
  // Tokens sit inside JSON strings: an alarm's ARN (a GetAtt) stands as its logical id, a Ref as its name.
  const json = (body['Fn::Join'][1] as (string | { 'Fn::GetAtt'?: [string, string]; Ref?: string })[])
    .map((part) => (typeof part === 'string' ? part : (part['Fn::GetAtt']?.[0] ?? part.Ref)))
    .join('');
  return (JSON.parse(json).widgets as { type: string; properties: { title: string; alarms?: string[] } }[])
    .filter((widget) => widget.type === 'alarm')
    .map((widget) => ({ title: widget.properties.title, alarms: widget.properties.alarms ?? [] }));
}

describe('OutboxAlarms: alarm status on the dashboard', () => {
  it('shows every alarm once, in widgets of at most 100, whether raised before the dashboard was built or after', () => {
    const stack = new Stack(new App(), 'ManyAlarms');
    const arn = (service: string, name: string) => `arn:aws:${service}:eu-west-1:123456789012:${name}`;
    const topics = Array.from({ length: 101 }, (_, i) => Topic.fromTopicArn(stack, `Topic${i}`, arn('sns', `t${i}`)));
    // Four relay alarms and one per topic: 105 before the dashboard is built; 96 dead-letter queues after it.
    const alarms = new OutboxAlarms(stack, 'Alarms', {
      relayFunction: LambdaFunction.fromFunctionName(stack, 'Relay', 'orders-relay'),
      relayEventSourceMappingId: 'mapping-uuid',
      topics,
    });
    for (let i = 0; i < 96; i++) alarms.addDeadLetterQueue(`Dlq${i}`, Queue.fromQueueArn(stack, `Queue${i}`, arn('sqs', `q${i}`)));
    const template = Template.fromStack(stack);

    const widgets = statusWidgets(template);
    expect(widgets.map((w) => [w.title, w.alarms.length])).toEqual([
      ['Outbox alarms', MAX_ALARMS_PER_WIDGET],
      ['Outbox alarms (continued, 2)', MAX_ALARMS_PER_WIDGET],
      ['Outbox alarms (continued, 3)', 1],
    ]);
    const shown = widgets.flatMap((w) => w.alarms);
    expect(shown.sort()).toEqual(Object.keys(template.findResources('AWS::CloudWatch::Alarm')).sort());
    expect(alarms.alarms).toHaveLength(201);
  });
});
