import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { App, Duration, Lazy, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { ContainerImage } from 'aws-cdk-lib/aws-ecs';
import { Key } from 'aws-cdk-lib/aws-kms';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { OutboxStack } from '../../examples/orders/infra/orders-stack.js';
import { LowLatencyProcessor, type LowLatencyProcessorProps } from '../../infra/low-latency-processor.js';
import { Outbox } from '../../infra/outbox.js';
import { DEFAULT_PROCESSOR_LAG_SECONDS } from '../../infra/outbox-alarms.js';
import { fargateTaskSizeProblem } from '../../infra/private/fargate-task-size.js';
import { defineConfig } from '../../shared/config.js';
import { RELAY_ENV } from '../../shared/event-source.js';
import { LEASE_TABLE, PROCESSOR_ENV, PROCESSOR_METRICS, ProcessorOptionsError } from '../../shared/processor/index.js';
import { DynamoDbLeaseTable } from '../../shared/processor/lease-table.js';
import { acknowledgements, appWithoutBundling, logicalId, resource } from '../helpers/cdk.js';

const config = defineConfig({
  source: 'urn:test:infra',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
  lowLatencyAggregateTypes: ['payment'],
});

/** A stack with the processor's neighbours; the image comes from a registry so no Docker build runs. */
function build(overrides: Partial<LowLatencyProcessorProps> = {}) {
  const stack = new Stack(new App(), 'ProcessorTest');
  const table = new Table(stack, 'Outbox', { partitionKey: { name: 'pk', type: AttributeType.STRING }, stream: StreamViewType.NEW_IMAGE });
  const topics = new Map(config.topics.map((t) => [t.name, new Topic(stack, `Topic${t.name.replace(/\W/g, '')}`, { fifo: t.fifo })]));
  const processor = new LowLatencyProcessor(stack, 'Processor', {
    config,
    table,
    topics,
    deadLetterQueue: new Queue(stack, 'RelayDlq'),
    image: ContainerImage.fromRegistry('public.ecr.aws/docker/library/node:24-slim'),
    ...overrides,
  });
  return { stack, processor, template: Template.fromStack(stack) };
}

let built: ReturnType<typeof build>;
beforeAll(() => {
  built = build({ failover: Duration.seconds(6) });
});

const taskRoleStatements = (template: Template) => {
  const roles = template.findResources('AWS::IAM::Role', {
    Properties: { AssumeRolePolicyDocument: { Statement: [Match.objectLike({ Principal: { Service: 'ecs-tasks.amazonaws.com' } })] } },
  });
  const taskRole = Object.keys(roles).find((id) => id.includes('TaskRole'))!;
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((p) => JSON.stringify(p.Properties.Roles) === JSON.stringify([{ Ref: taskRole }]))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]);
};

/** The IAM action of each DocumentClient command the lease table sends. */
const ITEM_ACTIONS: Record<string, string> = {
  ScanCommand: 'Scan',
  GetCommand: 'GetItem',
  PutCommand: 'PutItem',
  UpdateCommand: 'UpdateItem',
  DeleteCommand: 'DeleteItem',
};

describe('LowLatencyProcessor', () => {
  it('leaves no AwsSolutions finding unacknowledged, and gives each acknowledgement a reason', () => {
    const findings = new AwsSolutionsChecks()
      .validateScope(built.processor)
      .violations.flatMap((v) => v.violatingResources.map((r) => `${v.ruleName} @ ${r.constructPath}`));
    expect(findings).toEqual([]);
    const acks = built.processor.node
      .findAll()
      .flatMap((c) => c.node.metadata.filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY))
      .flatMap((m) => Object.values(m.data as Record<string, string>));
    expect(acks.length).toBeGreaterThan(0);
    for (const reason of acks) expect(reason.length).toBeGreaterThan(40);
    // The task role allows nothing on "*"; its one wildcard is its own prefix of the failed-batch bucket.
    const taskRoleAcks = acknowledgements(built.processor).filter((ack) => ack.path.includes('/TaskRole'));
    expect(taskRoleAcks.map((ack) => ack.id)).toEqual([
      expect.stringMatching(/AwsSolutions-IAM5\[Resource::<ProcessorFailedBatches\w+\.Arn>\/outbox-processor\/\*\]$/),
    ]);
  });

  it('creates the lease table from the shared definition, on demand, with point-in-time recovery', () => {
    built.template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      KeySchema: [{ AttributeName: LEASE_TABLE.partitionKey, KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: LEASE_TABLE.partitionKey, AttributeType: LEASE_TABLE.keyType }],
      BillingMode: 'PAY_PER_REQUEST',
      Replicas: [Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } })],
    });
  });

  it('runs an arm64 Fargate task with the processor environment, a health check, a graceful stop window and its own logs', () => {
    built.template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      RuntimePlatform: { CpuArchitecture: 'ARM64', OperatingSystemFamily: 'LINUX' },
      RequiresCompatibilities: ['FARGATE'],
      ContainerDefinitions: [
        Match.objectLike({
          HealthCheck: Match.objectLike({ Command: ['CMD', 'node', 'health-check.mjs'] }),
          StopTimeout: 120,
          ReadonlyRootFilesystem: true,
          LogConfiguration: Match.objectLike({ LogDriver: 'awslogs' }),
        }),
      ],
    });
    const [task] = Object.values(built.template.findResources('AWS::ECS::TaskDefinition'));
    const environment = new Map(
      (task!.Properties.ContainerDefinitions[0].Environment as { Name: string; Value: unknown }[]).map((e) => [e.Name, e.Value]),
    );
    expect(environment.get(PROCESSOR_ENV.failoverMs)).toBe('6000');
    expect(environment.get(RELAY_ENV.config)).toBe(JSON.stringify(config));
    for (const name of [PROCESSOR_ENV.streamArn, PROCESSOR_ENV.leaseTable, RELAY_ENV.topicArns, RELAY_ENV.deadLetterQueueUrl]) {
      expect(environment.get(name), name).toBeDefined();
    }
    built.template.resourceCountIs('AWS::Logs::LogGroup', 2);
  });

  it("keeps its VPC's flow log and its bucket's auto-delete provider's logs like its own logs: the same retention, removed with it when asked", () => {
    const logGroups = (template: Template) => Object.values(template.findResources('AWS::Logs::LogGroup'));
    const flowLog = built.template.findResources('AWS::EC2::FlowLog');
    expect(Object.values(flowLog)).toEqual([
      expect.objectContaining({ Properties: expect.objectContaining({ LogGroupName: { Ref: expect.stringMatching(/VpcFlowLogs/) } }) }),
    ]);
    expect(logGroups(built.template).map((g) => [g.Properties.RetentionInDays, g.DeletionPolicy])).toEqual([
      [30, 'Retain'],
      [30, 'Retain'],
    ]);
    // Deleted with the stack, the failed-batch bucket is emptied first by the stack's auto-delete provider.
    const disposable = build({ logRetention: RetentionDays.ONE_WEEK, removalPolicy: RemovalPolicy.DESTROY }).template;
    expect(logGroups(disposable).map((g) => [g.Properties.RetentionInDays, g.DeletionPolicy])).toEqual([
      [7, 'Delete'],
      [7, 'Delete'],
      [7, 'Delete'],
    ]);
  });

  it('keeps two tasks for a warm hand-off and scales on CPU up to the maximum', () => {
    built.template.hasResourceProperties('AWS::ECS::Service', {
      // Left to auto scaling: a DesiredCount would reset a scaled-out service on every deploy.
      DesiredCount: Match.absent(),
      LaunchType: 'FARGATE',
      DeploymentConfiguration: Match.objectLike({ MinimumHealthyPercent: 100, DeploymentCircuitBreaker: { Enable: true, Rollback: true } }),
    });
    built.template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', { MinCapacity: 2, MaxCapacity: 4 });
    built.template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      TargetTrackingScalingPolicyConfiguration: Match.objectLike({ TargetValue: 60 }),
    });
  });

  it('grants the task every call the lease table makes, each operation exercised against a recording client', async () => {
    const called = new Set<string>();
    const document = {
      send: async (command: { constructor: { name: string }; input: { Key?: { leaseKey?: string } } }) => {
        // A command not in the map shows as itself, which no grant names: a new call fails the test.
        called.add(`dynamodb:${ITEM_ACTIONS[command.constructor.name] ?? command.constructor.name}`);
        if (command.constructor.name === 'ScanCommand') {
          // A child whose parent the scan missed: the listing reads the parent on its own.
          return { Items: [{ leaseKey: 'child', leaseCounter: 0, checkpoint: 'TRIM_HORIZON', parentShardIds: ['parent'] }] };
        }
        if (command.constructor.name === 'GetCommand') return { Item: { leaseKey: command.input.Key?.leaseKey, leaseCounter: 0 } };
        return { Attributes: { leaseKey: 'child', leaseOwner: 'w', leaseCounter: 1, checkpoint: 'TRIM_HORIZON' } };
      },
    } as unknown as DynamoDBDocumentClient;
    const leases = new DynamoDbLeaseTable(document, 'leases');
    const [lease] = await leases.list();
    await leases.create('shard-1', []);
    await leases.take(lease!, 'w');
    await leases.renew(lease!, 'w');
    await leases.checkpoint(lease!, 'w', '000100');
    await leases.release(lease!, 'w');
    await leases.remove(lease!);

    const granted = new Set(taskRoleStatements(built.template).flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action])));
    expect([...called].sort()).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Scan',
      'dynamodb:UpdateItem',
    ]);
    expect([...called].filter((action) => !granted.has(action))).toEqual([]);
  });

  it('grants the task exactly stream reads, lease-table item writes, publishing, the relay DLQ and failed-batch writes', () => {
    const statements = taskRoleStatements(built.template);
    const actions = statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action])).sort();
    expect(actions).toEqual(
      [
        'dynamodb:DeleteItem',
        'dynamodb:DescribeStream',
        'dynamodb:GetRecords',
        'dynamodb:GetItem',
        'dynamodb:GetShardIterator',
        'dynamodb:ListStreams',
        'dynamodb:PutItem',
        'dynamodb:Scan',
        'dynamodb:UpdateItem',
        's3:PutObject',
        'sns:Publish',
        'sns:Publish',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:SendMessage',
      ].sort(),
    );
    expect(statements.filter((s) => JSON.stringify(s.Resource).includes('"*"'))).toEqual([]);
    const streamArn = { 'Fn::GetAtt': [logicalId(built.template, 'AWS::DynamoDB::Table', 'Outbox'), 'StreamArn'] };
    for (const action of ['dynamodb:ListStreams', 'dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator']) {
      const on = statements.filter((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]).includes(action)).map((s) => s.Resource);
      expect(on, action).toEqual([streamArn]);
    }
  });

  it('rejects a config without low-latency aggregate types, saying what is allowed', () => {
    const none = defineConfig({ ...config, lowLatencyAggregateTypes: [] });
    expect(LowLatencyProcessor.isEnabled(none)).toBe(false);
    expect(() => build({ config: none })).toThrow(ProcessorOptionsError);
    expect(() => build({ config: none })).toThrow(/lowLatencyAggregateTypes: got \[\]; allowed: at least one routed aggregate type/);
  });

  it('rejects a task maximum below the minimum and a topic map missing a configured topic', () => {
    expect(() => build({ minTasks: 3, maxTasks: 2 })).toThrow(/Processor\.maxTasks: got 2; allowed: a whole number from 3 to 100/);
    expect(() => build({ topics: new Map() })).toThrow(/has no topic "orders\.fifo"/);
  });

  it('rejects a CPU/memory pair Fargate does not offer, and a CPU it does not offer, saying what is allowed', () => {
    expect(() => build({ cpu: 256, memoryLimitMiB: 4096 })).toThrow(ProcessorOptionsError);
    expect(() => build({ cpu: 256, memoryLimitMiB: 4096 })).toThrow(
      /Processor\.memoryLimitMiB: got 4096 with cpu 256; allowed with cpu 256: 512, 1024 or 2048 MiB/,
    );
    expect(() => build({ cpu: 2048, memoryLimitMiB: 4608 })).toThrow(/allowed with cpu 2048: 4096 to 16384 MiB in steps of 1024/);
    expect(() => build({ cpu: 300, memoryLimitMiB: 1024 })).toThrow(
      /Processor\.cpu: got 300; allowed: 256, 512, 1024, 2048, 4096, 8192 or 16384/,
    );
  });

  it('shows a size or count given as a string (as CDK context gives it) quoted, not as the number it reads like', () => {
    const text = (value: string) => value as unknown as number;
    expect(() => build({ cpu: text('256'), memoryLimitMiB: 512 })).toThrow(/Processor\.cpu: got "256"; allowed: 256, 512/);
    expect(() => build({ cpu: 256, memoryLimitMiB: text('512') })).toThrow(
      /Processor\.memoryLimitMiB: got "512" with cpu 256; allowed with cpu 256: 512/,
    );
    expect(() => build({ minTasks: text('2') })).toThrow(/Processor\.minTasks: got "2"; allowed: a whole number from 1 to 100/);
  });

  it('accepts the task sizes Fargate offers, at the edges of each CPU value, and leaves tokens to CloudFormation', () => {
    const offered: [number, number][] = [
      [256, 512],
      [256, 2048],
      [512, 1024],
      [512, 4096],
      [1024, 2048],
      [1024, 8192],
      [2048, 4096],
      [2048, 16384],
      [4096, 8192],
      [4096, 30720],
      [8192, 16384],
      [8192, 61440],
      [16384, 32768],
      [16384, 122880],
    ];
    for (const [cpu, memory] of offered) expect(fargateTaskSizeProblem(cpu, memory), `${cpu}/${memory}`).toBeUndefined();
    for (const [cpu, memory] of [
      [256, 3072],
      [512, 512],
      [8192, 18432],
      [16384, 131072],
    ] as const) {
      expect(fargateTaskSizeProblem(cpu, memory)?.prop, `${cpu}/${memory}`).toBe('memoryLimitMiB');
    }
    expect(fargateTaskSizeProblem(Lazy.number({ produce: () => 300 }), 4096)).toBeUndefined();
    expect(fargateTaskSizeProblem(256, Lazy.number({ produce: () => 4096 }))).toBeUndefined();
  });

  it('keeps the lease table on an AWS-owned key unless given one, and refuses a key in a region-agnostic stack', () => {
    const lease = Object.values(built.template.findResources('AWS::DynamoDB::GlobalTable'))[0]!.Properties;
    expect(lease.SSESpecification).toEqual({ SSEEnabled: false });
    const stack = new Stack(new App(), 'KeyTest');
    const key = new Key(stack, 'Key');
    expect(() => build({ encryptionKey: key })).toThrow(ProcessorOptionsError);
    expect(() => build({ encryptionKey: key })).toThrow(
      /Processor\.encryptionKey: is set in the region-agnostic stack ProcessorTest; allowed: a customer-managed key only in a stack with an explicit env\.region/,
    );
  });
});

describe('Outbox construct and the processor', () => {
  it('adds the processor only when the config names low-latency aggregate types, granted through grantRelay', () => {
    const withTypes = new OutboxStack(appWithoutBundling(), 'WithProcessor', { config });
    const processor = withTypes.outbox.processor;
    expect(processor).toBeInstanceOf(LowLatencyProcessor);
    const statements = taskRoleStatements(Template.fromStack(withTypes));
    const actions = statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetRecords', 'sns:Publish', 'sqs:SendMessage', 'dynamodb:UpdateItem']));
    const without = new OutboxStack(appWithoutBundling(), 'WithoutProcessor', {
      config: defineConfig({ ...config, lowLatencyAggregateTypes: [] }),
    });
    expect(without.outbox.processor).toBeUndefined();
    const alarmIds = Object.keys(Template.fromStack(without).findResources('AWS::CloudWatch::Alarm'));
    expect(alarmIds.filter((id) => id.includes('Processor'))).toEqual([]);
  });

  it("alarms on the processor's lag, read where the container writes it, and on no task running", () => {
    const stack = new OutboxStack(appWithoutBundling(), 'ProcessorAlarms', { config });
    const template = Template.fromStack(stack);
    const alarmTopic = { Ref: logicalId(template, 'AWS::SNS::Topic', 'OutboxAlarmsAlarmTopic') };
    const alarm = (prefix: string) =>
      resource(template, 'AWS::CloudWatch::Alarm', logicalId(template, 'AWS::CloudWatch::Alarm', prefix)).Properties;
    const environment = Object.fromEntries(
      (
        Object.values(template.findResources('AWS::ECS::TaskDefinition'))[0]!.Properties.ContainerDefinitions[0].Environment as {
          Name: string;
          Value: unknown;
        }[]
      ).map((e) => [e.Name, e.Value]),
    );
    expect(alarm('OutboxAlarmsProcessorLag')).toMatchObject({
      Namespace: environment.POWERTOOLS_METRICS_NAMESPACE,
      MetricName: PROCESSOR_METRICS.lag,
      Dimensions: expect.arrayContaining([
        { Name: 'service', Value: environment.POWERTOOLS_SERVICE_NAME },
        { Name: PROCESSOR_METRICS.leaseTableDimension, Value: environment[PROCESSOR_ENV.leaseTable] },
      ]),
      Statistic: 'Maximum',
      Period: 60,
      Threshold: DEFAULT_PROCESSOR_LAG_SECONDS * 1000,
      EvaluationPeriods: 3,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [alarmTopic],
      OKActions: [alarmTopic],
    });
    expect(alarm('OutboxAlarmsProcessorLag').Dimensions).toHaveLength(2);
    const service = logicalId(template, 'AWS::ECS::Service', 'OutboxProcessorService');
    expect(alarm('OutboxAlarmsProcessorNotRunning')).toMatchObject({
      Namespace: 'ECS/ContainerInsights',
      MetricName: 'RunningTaskCount',
      Dimensions: expect.arrayContaining([
        { Name: 'ClusterName', Value: { Ref: logicalId(template, 'AWS::ECS::Cluster', 'OutboxProcessorCluster') } },
        { Name: 'ServiceName', Value: { 'Fn::GetAtt': [service, 'Name'] } },
      ]),
      Threshold: 1,
      EvaluationPeriods: 3,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
      AlarmActions: [alarmTopic],
    });
    const dashboard = JSON.stringify(template.findResources('AWS::CloudWatch::Dashboard'));
    expect(dashboard).toContain('Processor lag (ms)');
    expect(dashboard).toContain('Processor running tasks');

    const tunedStack = new Stack(appWithoutBundling(), 'TunedProcessorAlarms');
    const tuned = new Outbox(tunedStack, 'Outbox', { config, processorLagThreshold: Duration.seconds(5) });
    Template.fromStack(tunedStack).hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: PROCESSOR_METRICS.lag, Threshold: 5000 });
    expect(() => tuned.alarms.addProcessor(tuned.processor!, { lagThreshold: Duration.millis(500) })).toThrow(
      /lagThreshold is 500 millis; allowed: whole seconds from 1 to 86400/,
    );
  });
});
