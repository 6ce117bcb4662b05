import { Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Runtime, RuntimeFamily } from 'aws-cdk-lib/aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { OutboxStack } from '../../examples/orders/infra/orders-stack.js';
import { config } from '../../examples/orders/outbox.config.js';
import { Outbox } from '../../infra/outbox.js';
import { DEFAULT_FAILED_BATCH_RETENTION_DAYS } from '../../infra/private/failed-batch-bucket.js';
import { serializeRuntimeConfig } from '../../shared/config.js';
import { RELAY_ENV, relayEventSourceSettings } from '../../shared/event-source.js';
import { TABLE } from '../../shared/table.js';
import {
  acknowledgements,
  actionsOf,
  appWithoutBundling,
  CONSUMER_ENTRY,
  logicalId,
  resource,
  resourcesOf,
  roleStatements,
  unacknowledgedFindings,
} from '../helpers/cdk.js';

// One synthesis for the whole file; bundling is skipped here (bundles.test.ts runs the bundles).
let stack: OutboxStack;
let template: Template;
let ids: {
  table: string;
  relayFn: string;
  relayRole: string;
  relayDlq: string;
  bucket: string;
};
const topicIds = new Map<string, string>();

beforeAll(() => {
  stack = new OutboxStack(appWithoutBundling(), 'OutboxTest', { config, consumerEntry: CONSUMER_ENTRY });
  template = Template.fromStack(stack);
  ids = {
    table: logicalId(template, 'AWS::DynamoDB::GlobalTable', 'OutboxTable'),
    relayFn: logicalId(template, 'AWS::Lambda::Function', 'OutboxRelayFunction'),
    relayRole: logicalId(template, 'AWS::IAM::Role', 'OutboxRelayRole'),
    relayDlq: logicalId(template, 'AWS::SQS::Queue', 'OutboxRelayDeadLetterQueue'),
    bucket: logicalId(template, 'AWS::S3::Bucket', 'OutboxRelayFailedBatches'),
  };
  for (const topic of config.topics)
    topicIds.set(topic.name, stack.getLogicalId(stack.outbox.topics.topics.get(topic.name)!.node.defaultChild as never));
});

const relayMapping = () => {
  const mappings = template.findResources('AWS::Lambda::EventSourceMapping', { Properties: { FunctionName: { Ref: ids.relayFn } } });
  expect(Object.keys(mappings)).toHaveLength(1);
  return Object.values(mappings)[0]!.Properties as Record<string, unknown>;
};

describe('OutboxStack: cdk-nag', { timeout: 120_000 }, () => {
  it('leaves no AwsSolutions or Serverless finding unacknowledged', () => {
    expect(unacknowledgedFindings(stack)).toEqual([]);
  });

  it('gives every acknowledgement a reason', () => {
    const acks = acknowledgements(stack);
    expect(acks.length).toBeGreaterThan(0);
    for (const ack of acks) expect(typeof ack.reason === 'string' && ack.reason.length >= 40, `${ack.id} at ${ack.path}`).toBe(true);
  });
});

describe('OutboxStack: table', () => {
  it('uses the keys, stream and TTL of shared/table.ts, on demand, with point-in-time recovery', () => {
    const table = resource(template, 'AWS::DynamoDB::GlobalTable', ids.table).Properties;
    expect(table.KeySchema).toEqual([
      { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
    ]);
    expect(table.AttributeDefinitions).toEqual([
      { AttributeName: TABLE.partitionKey, AttributeType: TABLE.keyType },
      { AttributeName: TABLE.sortKey, AttributeType: TABLE.keyType },
    ]);
    expect(table.StreamSpecification).toEqual({ StreamViewType: TABLE.streamViewType });
    expect(table.TimeToLiveSpecification).toEqual({ AttributeName: TABLE.timeToLiveAttribute, Enabled: true });
    expect(table.BillingMode).toBe('PAY_PER_REQUEST');
    expect(table.Replicas).toEqual([expect.objectContaining({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } })]);
  });

  it('encrypts with a DynamoDB-owned key and, by default, is kept and protected from deletion', () => {
    const table = resource(template, 'AWS::DynamoDB::GlobalTable', ids.table);
    expect(table.Properties.SSESpecification).toEqual({ SSEEnabled: false });
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.Properties.Replicas).toEqual([expect.objectContaining({ DeletionProtectionEnabled: true })]);
  });

  it('with retainData: false, is deleted with the stack, as are its queues, bucket and key', () => {
    const disposable = new OutboxStack(appWithoutBundling(), 'Disposable', {
      config,
      consumerEntry: CONSUMER_ENTRY,
      retainData: false,
      customerManagedKey: true,
      env: { region: 'eu-west-1' },
    });
    const t = Template.fromStack(disposable);
    const table = resource(t, 'AWS::DynamoDB::GlobalTable', logicalId(t, 'AWS::DynamoDB::GlobalTable', 'OutboxTable'));
    expect(table.DeletionPolicy).toBe('Delete');
    expect(table.Properties.Replicas).toEqual([expect.objectContaining({ DeletionProtectionEnabled: false })]);
    for (const type of ['AWS::SQS::Queue', 'AWS::S3::Bucket']) {
      for (const id of Object.keys(t.findResources(type))) expect(resource(t, type, id).DeletionPolicy, id).toBe('Delete');
    }
    expect(resource(t, 'AWS::KMS::Key', logicalId(t, 'AWS::KMS::Key', 'OutboxKey')).DeletionPolicy).toBe('Delete');
  });
});

describe('OutboxStack: topics', () => {
  it('creates one topic per config topic, FIFO exactly where the config says, encrypted with KMS', () => {
    for (const topic of config.topics) {
      const props = resource(template, 'AWS::SNS::Topic', topicIds.get(topic.name)!).Properties;
      expect(props.FifoTopic).toBe(topic.fifo);
      expect(JSON.stringify(props.KmsMasterKeyId)).toContain('alias/aws/sns');
      if (topic.fifo) {
        // Deduplication by the relay's MessageDeduplicationId (the event id), never by content.
        expect(props.ContentBasedDeduplication).toBe(false);
        expect(props.FifoThroughputScope).toBe('MessageGroup');
      }
    }
  });

  it("denies sns:Publish and the actions of SNS's default topic policy over a connection without TLS", () => {
    for (const topic of config.topics) {
      const policies = template.findResources('AWS::SNS::TopicPolicy', { Properties: { Topics: [{ Ref: topicIds.get(topic.name) }] } });
      const statements = Object.values(policies).flatMap(
        (p) => p.Properties.PolicyDocument.Statement as { Effect: string; Action: string | string[]; Condition: unknown }[],
      );
      const denied = statements
        .filter((s) => s.Effect === 'Deny' && JSON.stringify(s.Condition) === JSON.stringify({ Bool: { 'aws:SecureTransport': 'false' } }))
        .flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
      expect(denied.sort()).toEqual(
        [
          'sns:Publish',
          'sns:Subscribe',
          'sns:ListSubscriptionsByTopic',
          'sns:GetTopicAttributes',
          'sns:SetTopicAttributes',
          'sns:AddPermission',
          'sns:RemovePermission',
          'sns:DeleteTopic',
        ].sort(),
      );
    }
  });
});

describe('OutboxStack: relay Lambda', () => {
  it('runs on arm64 and the newest Node.js runtime aws-cdk-lib knows, with set memory and timeout', () => {
    const newest = Runtime.ALL.filter((r) => r.family === RuntimeFamily.NODEJS)
      .map((r) => r.name)
      .sort((a, b) => a.localeCompare(b, undefined, { numeric: true }))
      .at(-1);
    const fn = resource(template, 'AWS::Lambda::Function', ids.relayFn).Properties;
    expect(fn.Runtime).toBe(newest);
    expect(fn.Architectures).toEqual(['arm64']);
    expect(fn.MemorySize).toBe(512);
    expect(fn.Timeout).toBe(60);
    expect(fn.TracingConfig).toEqual({ Mode: 'Active' });
    expect(fn.Handler).toBe('index.handler');
  });

  it('passes the config, topic ARNs, DLQ URL and Powertools settings through the environment', () => {
    const env = (resource(template, 'AWS::Lambda::Function', ids.relayFn).Properties.Environment as { Variables: Record<string, unknown> })
      .Variables;
    expect(env[RELAY_ENV.config]).toBe(serializeRuntimeConfig(config));
    expect(env[RELAY_ENV.deadLetterQueueUrl]).toEqual({ Ref: ids.relayDlq });
    // A JSON object built by Fn::Join: each topic's ARN reference follows the text `"<name>":"`.
    const parts = (env[RELAY_ENV.topicArns] as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
    for (const [name, id] of topicIds) {
      const at = parts.findIndex((part) => JSON.stringify(part) === JSON.stringify({ Ref: id }));
      expect(at, name).toBeGreaterThan(0);
      expect(String(parts[at - 1]).endsWith(`"${name}":"`), name).toBe(true);
    }
    expect(env).toMatchObject({
      POWERTOOLS_SERVICE_NAME: 'outbox-relay',
      POWERTOOLS_METRICS_NAMESPACE: 'Outbox',
      POWERTOOLS_LOG_LEVEL: 'INFO',
    });
  });

  it('holds no managed policy and no wildcard action', () => {
    const role = resource(template, 'AWS::IAM::Role', ids.relayRole).Properties;
    expect(role.ManagedPolicyArns).toBeUndefined();
    const actions = roleStatements(template, ids.relayRole).flatMap(actionsOf);
    expect(actions.filter((a) => a.includes('*'))).toEqual([]);
  });

  it('may do exactly what relaying needs: logs, traces, publish, DLQ send, stream read, failed-batch write', () => {
    const actions = new Set(roleStatements(template, ids.relayRole).flatMap(actionsOf));
    expect([...actions].sort()).toEqual(
      [
        'dynamodb:DescribeStream',
        'dynamodb:GetRecords',
        'dynamodb:GetShardIterator',
        'dynamodb:ListStreams',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        's3:ListBucket',
        's3:PutObject',
        'sns:Publish',
        'sqs:SendMessage',
        'xray:PutTelemetryRecords',
        'xray:PutTraceSegments',
      ].sort(),
    );
    for (const statement of roleStatements(template, ids.relayRole)) expect(statement.Effect).toBe('Allow');
  });

  it('allows "*" as a resource only for X-Ray, which has no resource-level permissions', () => {
    const starred = roleStatements(template, ids.relayRole).filter((s) => resourcesOf(s).includes('*'));
    expect(starred.flatMap(actionsOf).sort()).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
  });

  it('publishes only to the config topics, sends only to its DLQ and reads only its table stream', () => {
    const statements = roleStatements(template, ids.relayRole);
    const on = (action: string) => statements.filter((s) => actionsOf(s).includes(action)).flatMap(resourcesOf);
    expect(on('sns:Publish')).toEqual([...topicIds.values()].map((id) => ({ Ref: id })));
    expect(on('sqs:SendMessage')).toEqual([{ 'Fn::GetAtt': [ids.relayDlq, 'Arn'] }]);
    for (const action of ['dynamodb:ListStreams', 'dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator']) {
      expect(on(action)).toEqual([{ 'Fn::GetAtt': [ids.table, 'StreamArn'] }]);
    }
    expect(on('s3:ListBucket')).toEqual([{ 'Fn::GetAtt': [ids.bucket, 'Arn'] }]);
    expect(on('s3:PutObject')).toEqual([{ 'Fn::Join': ['', [{ 'Fn::GetAtt': [ids.bucket, 'Arn'] }, '/*']] }]);
  });

  it('writes only to its own log group', () => {
    const statements = roleStatements(template, ids.relayRole).filter((s) => actionsOf(s).some((a) => a.startsWith('logs:')));
    const logGroup = logicalId(template, 'AWS::Logs::LogGroup', 'OutboxRelayLogs');
    expect(statements.flatMap(resourcesOf)).toEqual([{ 'Fn::GetAtt': [logGroup, 'Arn'] }]);
    expect(resource(template, 'AWS::Lambda::Function', ids.relayFn).Properties.LoggingConfig).toEqual({
      LogFormat: 'JSON',
      LogGroup: { Ref: logGroup },
    });
  });
});

describe('OutboxStack: relay event source mapping', () => {
  it('applies relayEventSourceSettings(config) to the table stream', () => {
    const settings = relayEventSourceSettings(config);
    expect(relayMapping()).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [ids.table, 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: settings.batchSize,
      MaximumBatchingWindowInSeconds: settings.maxBatchingWindowSeconds,
      ParallelizationFactor: settings.parallelizationFactor,
      BisectBatchOnFunctionError: settings.bisectBatchOnError,
      MaximumRetryAttempts: settings.maxRetryAttempts,
      MaximumRecordAgeInSeconds: settings.maxRecordAgeSeconds,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('deploys exactly the filter patterns the local runner applies', () => {
    const deployed = (relayMapping().FilterCriteria as { Filters: { Pattern: string }[] }).Filters.map((f) => f.Pattern);
    expect(deployed).toEqual(relayEventSourceSettings(config).filterPatterns.map((p) => JSON.stringify(p)));
  });

  it('sends failed batches, as full records, to the S3 bucket', () => {
    expect(relayMapping().DestinationConfig).toEqual({ OnFailure: { Destination: { 'Fn::GetAtt': [ids.bucket, 'Arn'] } } });
  });

  it('keeps the relay DLQ 14 days, encrypted, TLS only, taking messages of 1 MiB', () => {
    const dlq = resource(template, 'AWS::SQS::Queue', ids.relayDlq).Properties;
    expect(dlq.MessageRetentionPeriod).toBe(14 * 24 * 3600);
    expect(dlq.MaximumMessageSize).toBe(1_048_576);
    expect(dlq.SqsManagedSseEnabled).toBe(true);
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: ids.relayDlq }],
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
  });

  it('expires failed batches after the default retention, and after the one given', () => {
    expect(resource(template, 'AWS::S3::Bucket', ids.bucket).Properties.LifecycleConfiguration).toEqual({
      Rules: [{ Id: 'ExpireFailedBatches', ExpirationInDays: DEFAULT_FAILED_BATCH_RETENTION_DAYS, Status: 'Enabled' }],
    });
    const stack = new Stack(appWithoutBundling(), 'Retention');
    new Outbox(stack, 'Outbox', { config, failedBatchRetention: Duration.days(30) });
    Template.fromStack(stack).hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: { Rules: [{ Id: 'ExpireFailedBatches', ExpirationInDays: 30, Status: 'Enabled' }] },
    });
  });

  it('keeps the failed-batch bucket private, encrypted and TLS only', () => {
    const bucket = resource(template, 'AWS::S3::Bucket', ids.bucket).Properties;
    expect(bucket.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.BucketEncryption).toEqual({
      ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: ids.bucket },
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
  });
});

describe('Outbox with many subscribers', () => {
  it('spreads the alarm-status widgets at most 100 alarms each (CloudWatch refuses more), and shows every alarm', () => {
    const many = new Stack(appWithoutBundling(), 'ManySubscribers');
    const outbox = new Outbox(many, 'Outbox', { config });
    // Two alarms each (DLQ, oldest message), beyond the relay's and the topics' own.
    for (let i = 0; i < 48; i++) outbox.addSubscriber(`Sub${i}`, { topic: config.topics[0]!.name });
    const manyTemplate = Template.fromStack(many);

    const body = Object.values(manyTemplate.findResources('AWS::CloudWatch::Dashboard'))[0]!.Properties.DashboardBody as {
      'Fn::Join': [string, (string | Record<string, unknown>)[]];
    };
    // Tokens (alarm ARNs) stand inside JSON strings: each becomes a placeholder there.
    const text = body['Fn::Join'][1].map((part) => (typeof part === 'string' ? part : '<token>')).join('');
    const widgets = (JSON.parse(text) as { widgets: { type: string; properties: { alarms?: string[] } }[] }).widgets;
    const statusWidgets = widgets.filter((w) => w.type === 'alarm');
    const alarmCount = Object.keys(manyTemplate.findResources('AWS::CloudWatch::Alarm')).length;

    expect(alarmCount).toBeGreaterThan(100);
    expect(statusWidgets.length).toBe(Math.ceil(alarmCount / 100));
    for (const widget of statusWidgets) expect(widget.properties.alarms!.length).toBeLessThanOrEqual(100);
    expect(statusWidgets.flatMap((w) => w.properties.alarms!)).toHaveLength(alarmCount);
  });

  it("keeps the outbox's removal policy and key for a subscriber option given as undefined", () => {
    const keyed = new Stack(appWithoutBundling(), 'UndefinedOptions', { env: { account: '111111111111', region: 'eu-west-1' } });
    const key = new Key(keyed, 'Key');
    const outbox = new Outbox(keyed, 'Outbox', { config, encryptionKey: key });
    outbox.addSubscriber('Pay', {
      topic: config.topics[0]!.name,
      removalPolicy: undefined,
      encryptionKey: undefined,
      logRetention: undefined,
    });
    const keyedTemplate = Template.fromStack(keyed);

    const queues = Object.entries(keyedTemplate.findResources('AWS::SQS::Queue')).filter(([id]) => id.includes('Pay'));
    expect(queues).toHaveLength(2);
    for (const [, queue] of queues) {
      expect(queue.DeletionPolicy).toBe('Retain');
      expect(queue.Properties.KmsMasterKeyId).toEqual({ 'Fn::GetAtt': [keyed.getLogicalId(key.node.defaultChild as never), 'Arn'] });
    }
  });
});
