import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_CONSUMER_TABLE_ENV, OutboxStack } from '../../examples/orders/infra/orders-stack.js';
import { config } from '../../examples/orders/outbox.config.js';
import { RELAY_METRICS } from '../../shared/relay/index.js';
import { actionsOf, appWithoutBundling, logicalId, resource, resourcesOf, roleStatements, type Statement } from '../helpers/cdk.js';

let stack: OutboxStack;
let template: Template;
let ids: { consumerFn: string; consumerRole: string; relayFn: string; relayDlq: string; alarmTopic: string; table: string };
/** Per config topic: the example consumer's queue and DLQ on it. */
const queues = new Map<string, { queue: string; dlq: string; topicRef: { Ref: string } }>();

beforeAll(() => {
  // Bundling is skipped: these assertions are on the template; bundles.test.ts runs the bundles.
  stack = new OutboxStack(appWithoutBundling(), 'OutboxTest', { config, alarmEmail: 'oncall@example.com', retainData: true });
  template = Template.fromStack(stack);
  ids = {
    consumerFn: logicalId(template, 'AWS::Lambda::Function', 'ExampleConsumerFunction'),
    consumerRole: logicalId(template, 'AWS::IAM::Role', 'ExampleConsumerRole'),
    relayFn: logicalId(template, 'AWS::Lambda::Function', 'OutboxRelayFunction'),
    relayDlq: logicalId(template, 'AWS::SQS::Queue', 'OutboxRelayDeadLetterQueue'),
    alarmTopic: logicalId(template, 'AWS::SNS::Topic', 'OutboxAlarmsAlarmTopic'),
    table: logicalId(template, 'AWS::DynamoDB::GlobalTable', 'OutboxTable'),
  };
  for (const [name, topic] of stack.outbox.topics.topics) {
    const subscriber = [...stack.outbox.subscribers.values()].find((sub) => sub.topic === topic)!;
    queues.set(name, {
      queue: stack.getLogicalId(subscriber.queue.node.defaultChild as never),
      dlq: stack.getLogicalId(subscriber.deadLetterQueue.node.defaultChild as never),
      topicRef: { Ref: stack.getLogicalId(topic.node.defaultChild as never) },
    });
  }
});

const alarms = () => Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties as Record<string, unknown>);

describe('OutboxStack: example consumer subscriptions', () => {
  it('subscribes one queue per config topic, of the same kind as the topic, with raw delivery and a DLQ for undeliverable messages', () => {
    expect([...queues.keys()]).toEqual(config.topics.map((t) => t.name));
    for (const topic of config.topics) {
      const { queue, dlq, topicRef } = queues.get(topic.name)!;
      expect(Boolean(resource(template, 'AWS::SQS::Queue', queue).Properties.FifoQueue), topic.name).toBe(topic.fifo);
      template.hasResourceProperties('AWS::SNS::Subscription', {
        Protocol: 'sqs',
        TopicArn: topicRef,
        Endpoint: { 'Fn::GetAtt': [queue, 'Arn'] },
        RawMessageDelivery: true,
        RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlq, 'Arn'] } },
      });
    }
  });

  it('redrives to a 14-day DLQ after maxReceiveCount receives, both queues encrypted and TLS only, SNS allowed only from its topic', () => {
    for (const topic of config.topics) {
      const { queue, dlq, topicRef } = queues.get(topic.name)!;
      expect(resource(template, 'AWS::SQS::Queue', queue).Properties.RedrivePolicy).toEqual({
        deadLetterTargetArn: { 'Fn::GetAtt': [dlq, 'Arn'] },
        maxReceiveCount: 5,
      });
      const dlqProps = resource(template, 'AWS::SQS::Queue', dlq).Properties;
      expect(dlqProps.MessageRetentionPeriod).toBe(14 * 24 * 3600);
      expect(Boolean(dlqProps.FifoQueue)).toBe(topic.fifo);
      for (const id of [queue, dlq]) {
        expect(resource(template, 'AWS::SQS::Queue', id).Properties.SqsManagedSseEnabled).toBe(true);
        const policy = Object.values(template.findResources('AWS::SQS::QueuePolicy', { Properties: { Queues: [{ Ref: id }] } }))[0]!;
        const statements = policy.Properties.PolicyDocument.Statement as { Effect: string; Condition?: unknown; Principal?: unknown }[];
        expect(statements).toContainEqual(
          expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        );
        expect(statements).toContainEqual(
          expect.objectContaining({
            Effect: 'Allow',
            Principal: { Service: 'sns.amazonaws.com' },
            Condition: { ArnEquals: { 'aws:SourceArn': topicRef } },
          }),
        );
      }
    }
  });

  it('sets every visibility timeout to at least 6 × the consumer timeout', () => {
    const timeout = resource(template, 'AWS::Lambda::Function', ids.consumerFn).Properties.Timeout as number;
    for (const { queue } of queues.values()) {
      expect(resource(template, 'AWS::SQS::Queue', queue).Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * timeout);
    }
  });

  it('feeds the one consumer from every queue through event sources that report batch item failures', () => {
    for (const { queue } of queues.values()) {
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: ids.consumerFn },
        EventSourceArn: { 'Fn::GetAtt': [queue, 'Arn'] },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        BatchSize: 10,
      });
    }
  });

  it('tells the consumer its table and lets it consume its queues and use that table, nothing else', () => {
    const fn = resource(template, 'AWS::Lambda::Function', ids.consumerFn).Properties;
    expect((fn.Environment as { Variables: Record<string, unknown> }).Variables[EXAMPLE_CONSUMER_TABLE_ENV]).toEqual({ Ref: ids.table });
    const statements = roleStatements(template, ids.consumerRole);
    const sqs = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')));
    expect(new Set(sqs.flatMap(resourcesOf).map((r) => JSON.stringify(r)))).toEqual(
      new Set([...queues.values()].map(({ queue }) => JSON.stringify({ 'Fn::GetAtt': [queue, 'Arn'] }))),
    );
    expect(sqs.flatMap(actionsOf)).not.toContain('sqs:SendMessage');
    const dynamo = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
    expect(dynamo.flatMap(resourcesOf).map((r) => JSON.stringify(r))).toEqual(
      dynamo.map(() => JSON.stringify({ 'Fn::GetAtt': [ids.table, 'Arn'] })),
    );
    // Its own items only: never an outbox slot, which the relay would publish.
    for (const statement of dynamo) {
      expect(statement.Condition).toEqual({
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['VIEW#order#*', 'INBOX#order-view#*', 'SEQ#order-view#*'] },
      });
    }
    const services = new Set(statements.flatMap(actionsOf).map((a) => a.split(':')[0]));
    expect([...services].sort()).toEqual(['dynamodb', 'logs', 'sqs', 'xray']);
  });
});

describe('OutboxStack: alarms and dashboard', () => {
  it('alarms on relay iterator age, errors and throttles of the relay function', () => {
    for (const metric of ['IteratorAge', 'Errors', 'Throttles']) {
      const found = alarms().filter(
        (a) =>
          a.MetricName === metric &&
          a.Namespace === 'AWS/Lambda' &&
          JSON.stringify(a.Dimensions) === JSON.stringify([{ Name: 'FunctionName', Value: { Ref: ids.relayFn } }]),
      );
      expect(found, metric).toHaveLength(1);
    }
    const age = alarms().find((a) => a.MetricName === 'IteratorAge')!;
    expect(age).toMatchObject({ Statistic: 'Maximum', Threshold: 60_000, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
  });

  it('alarms on the first record the relay mapping gives up to its on-failure destination, which reports that count', () => {
    const mappings = template.findResources('AWS::Lambda::EventSourceMapping', { Properties: { FunctionName: { Ref: ids.relayFn } } });
    const [mappingId, mapping] = Object.entries(mappings)[0]!;
    expect(mapping.Properties.MetricsConfig).toEqual({ Metrics: ['EventCount'] });
    const found = alarms().filter((a) => JSON.stringify(a.Metrics ?? []).includes('OnFailureDestinationDeliveredEventCount'));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      Threshold: 1,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    const metrics = found[0]!.Metrics as {
      Id: string;
      Expression?: string;
      MetricStat?: { Metric: Record<string, unknown>; Stat: string };
    }[];
    const sum = metrics.find((m) => m.Expression !== undefined);
    expect(sum?.Expression).toBe('FILL(delivered, 0) + FILL(dropped, 0)');
    const byId = Object.fromEntries(metrics.filter((m) => m.MetricStat !== undefined).map((m) => [m.Id, m.MetricStat!]));
    for (const [id, metricName] of [
      ['delivered', 'OnFailureDestinationDeliveredEventCount'],
      ['dropped', 'DroppedEventCount'],
    ]) {
      expect(byId[id!]).toMatchObject({
        Stat: 'Sum',
        Metric: {
          Namespace: 'AWS/Lambda',
          MetricName: metricName,
          Dimensions: [{ Name: 'EventSourceMappingUUID', Value: { Ref: mappingId } }],
        },
      });
    }
  });

  it('alarms on the first message in every DLQ', () => {
    for (const queue of [ids.relayDlq, ...[...queues.values()].map((q) => q.dlq)]) {
      const found = alarms().filter(
        (a) =>
          a.MetricName === 'ApproximateNumberOfMessagesVisible' &&
          JSON.stringify(a.Dimensions).includes(`"Fn::GetAtt":["${queue}","QueueName"]`),
      );
      expect(found, queue).toHaveLength(1);
      expect(found[0]).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', EvaluationPeriods: 1 });
    }
  });

  it("alarms when a subscriber queue's oldest message has waited an hour, long before its 4-day retention deletes it unread", () => {
    for (const { queue } of queues.values()) {
      const found = alarms().filter(
        (a) =>
          a.MetricName === 'ApproximateAgeOfOldestMessage' &&
          JSON.stringify(a.Dimensions).includes(`"Fn::GetAtt":["${queue}","QueueName"]`),
      );
      expect(found, queue).toHaveLength(1);
      expect(found[0]).toMatchObject({
        Namespace: 'AWS/SQS',
        Statistic: 'Maximum',
        Threshold: 3600,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 3,
        TreatMissingData: 'notBreaching',
      });
    }
  });

  it('alarms on SNS delivery failures of every outbox topic', () => {
    const failing = alarms().filter((a) => a.MetricName === 'NumberOfNotificationsFailed' && a.Namespace === 'AWS/SNS');
    expect(failing).toHaveLength(config.topics.length);
  });

  it('notifies the alarm topic on alarm and OK, and the topic is encrypted with a key CloudWatch may use', () => {
    for (const alarm of alarms()) {
      expect(alarm.AlarmActions).toEqual([{ Ref: ids.alarmTopic }]);
      expect(alarm.OKActions).toEqual([{ Ref: ids.alarmTopic }]);
    }
    const keyId = (resource(template, 'AWS::SNS::Topic', ids.alarmTopic).Properties.KmsMasterKeyId as { 'Fn::GetAtt': [string, string] })[
      'Fn::GetAtt'
    ][0];
    const key = resource(template, 'AWS::KMS::Key', keyId).Properties;
    expect(key.EnableKeyRotation).toBe(true);
    const account = { Ref: 'AWS::AccountId' };
    const keyStatements = (key.KeyPolicy as { Statement: Statement[] }).Statement;
    expect(keyStatements.filter((s) => JSON.stringify(s.Principal).includes('cloudwatch.amazonaws.com'))).toEqual([
      expect.objectContaining({ Effect: 'Allow', Condition: { StringEquals: { 'aws:SourceAccount': account } } }),
    ]);
    // The topic's own policy (enforceSSL) replaces SNS's default one, so it must let CloudWatch publish.
    const topicPolicies = template.findResources('AWS::SNS::TopicPolicy', { Properties: { Topics: [{ Ref: ids.alarmTopic }] } });
    const topicStatements = Object.values(topicPolicies).flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
    expect(topicStatements.filter((s) => s.Effect === 'Allow')).toEqual([
      expect.objectContaining({
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: 'sns:Publish',
        Resource: { Ref: ids.alarmTopic },
        Condition: {
          StringEquals: { 'aws:SourceAccount': account },
          ArnLike: {
            'aws:SourceArn': {
              'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':cloudwatch:', { Ref: 'AWS::Region' }, ':', account, ':alarm:*']],
            },
          },
        },
      }),
    ]);
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
      TopicArn: { Ref: ids.alarmTopic },
    });
  });

  it("charts the relay handler's own metrics under the relay function's name, which Lambda gives the handler", () => {
    // The dashboard body is a Fn::Join of JSON text and tokens; the tokens become "<Ref:…>" strings.
    const body = Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0]!.Properties.DashboardBody as {
      'Fn::Join': [string, (string | { Ref: string })[]];
    };
    const text = body['Fn::Join'][1].map((part) => (typeof part === 'string' ? part : `<Ref:${part.Ref}>`)).join('');
    const widgets = (JSON.parse(text) as { widgets: { properties: { title?: string; metrics?: unknown[][] } }[] }).widgets;
    const chart = (title: string) => widgets.find((w) => w.properties.title === title)?.properties.metrics;
    const relayMetric = (name: string, stat: string) => [
      RELAY_METRICS.namespace,
      name,
      RELAY_METRICS.functionDimension,
      `<Ref:${ids.relayFn}>`,
      'service',
      RELAY_METRICS.service,
      { period: 60, stat },
    ];
    expect(chart('Relay events per minute')).toEqual(
      [RELAY_METRICS.published, RELAY_METRICS.retried, RELAY_METRICS.deadLettered, RELAY_METRICS.failedRecords].map((name) =>
        relayMetric(name, 'Sum'),
      ),
    );
    expect(chart('Relay lag, commit to published (ms)')).toEqual([relayMetric(RELAY_METRICS.lag, 'Maximum')]);
    expect(stack.resolve(stack.outbox.relay.metric(RELAY_METRICS.lag).dimensions)).toEqual({
      service: RELAY_METRICS.service,
      [RELAY_METRICS.functionDimension]: { Ref: ids.relayFn },
    });
  });

  it('reads every relay lag as the worst of each minute, under the dimensions it is written with', () => {
    const byType = stack.outbox.relay.metric(RELAY_METRICS.lagByAggregateType, {}, { [RELAY_METRICS.aggregateTypeDimension]: 'order' });
    const byEventType = stack.outbox.relay.metric(RELAY_METRICS.lagByEventType);
    expect([byType.statistic, byEventType.statistic]).toEqual(['Maximum', 'Maximum']);
    expect(stack.outbox.relay.metric(RELAY_METRICS.published).statistic).toBe('Sum');
    expect(stack.resolve(byType.dimensions)).toEqual({
      service: RELAY_METRICS.service,
      [RELAY_METRICS.functionDimension]: { Ref: ids.relayFn },
      [RELAY_METRICS.aggregateTypeDimension]: 'order',
    });
  });

  it('shows every alarm on the dashboard', () => {
    const body = JSON.stringify(Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0]!.Properties.DashboardBody);
    for (const id of Object.keys(template.findResources('AWS::CloudWatch::Alarm'))) expect(body).toContain(`"${id}","Arn"`);
  });
});

describe('OutboxStack: outputs and retention', () => {
  it('outputs the table name, topic ARNs, queue URLs and the alarm topic ARN', () => {
    const outputs = template.findOutputs('*');
    const values = Object.values(outputs).map((o) => JSON.stringify(o.Value));
    expect(values).toContain(JSON.stringify({ Ref: stack.getLogicalId(stack.outbox.table.node.defaultChild as never) }));
    for (const topic of stack.outbox.topics.topics.values())
      expect(values).toContain(JSON.stringify({ Ref: stack.getLogicalId(topic.node.defaultChild as never) }));
    const queueIds = [ids.relayDlq, ...[...queues.values()].flatMap((q) => [q.queue, q.dlq])];
    for (const queue of queueIds) expect(values).toContain(JSON.stringify({ Ref: queue }));
    expect(values).toContain(JSON.stringify({ Ref: ids.alarmTopic }));
  });

  it('with retainData keeps the table, queues and bucket and protects the table from deletion', () => {
    const table = resource(template, 'AWS::DynamoDB::GlobalTable', logicalId(template, 'AWS::DynamoDB::GlobalTable', 'OutboxTable'));
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.Properties.Replicas).toEqual([expect.objectContaining({ DeletionProtectionEnabled: true })]);
    for (const id of Object.keys(template.findResources('AWS::SQS::Queue')))
      expect(resource(template, 'AWS::SQS::Queue', id).DeletionPolicy).toBe('Retain');
    expect(resource(template, 'AWS::S3::Bucket', logicalId(template, 'AWS::S3::Bucket', 'OutboxRelayFailedBatches')).DeletionPolicy).toBe(
      'Retain',
    );
  });
});
