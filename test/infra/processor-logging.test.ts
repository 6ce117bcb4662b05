import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { ContainerImage } from 'aws-cdk-lib/aws-ecs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { LowLatencyProcessor } from '../../infra/low-latency-processor.js';
import { defineConfig } from '../../shared/config.js';

const config = defineConfig({
  source: 'urn:test:infra',
  topics: [{ name: 'payments' }],
  routes: { payment: 'payments' },
  lowLatencyAggregateTypes: ['payment'],
});

describe("the processor's log driver", { timeout: 120_000 }, () => {
  it('states its delivery mode: non-blocking with a buffer of its own, whatever the account default', () => {
    const stack = new Stack(new App(), 'ProcessorLogs');
    const table = new Table(stack, 'Outbox', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
      stream: StreamViewType.NEW_IMAGE,
    });
    new LowLatencyProcessor(stack, 'Processor', {
      config,
      table,
      topics: new Map([['payments', new Topic(stack, 'Payments')]]),
      deadLetterQueue: new Queue(stack, 'RelayDlq'),
      image: ContainerImage.fromRegistry('public.ecr.aws/docker/library/node:24-slim'),
    });
    const [task] = Object.values(Template.fromStack(stack).findResources('AWS::ECS::TaskDefinition'));
    const logging = task!.Properties.ContainerDefinitions[0].LogConfiguration as { LogDriver: string; Options: Record<string, unknown> };
    // Left out, the mode is the account's ECS setting (defaultLogDriverMode): blocking there would
    // stall the processor's writes, and so its publishing, while CloudWatch Logs lags.
    expect(logging.LogDriver).toBe('awslogs');
    expect(logging.Options).toMatchObject({ mode: 'non-blocking', 'max-buffer-size': '26214400b' }); // 25 MiB
  });
});
