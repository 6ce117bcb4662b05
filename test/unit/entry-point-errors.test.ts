import { SQSClient } from '@aws-sdk/client-sqs';
import { App, Stack } from 'aws-cdk-lib';
import * as root from 'dynamodb-outbox';
import * as cdk from 'dynamodb-outbox/cdk';
import * as consumer from 'dynamodb-outbox/consumer';
import * as processor from 'dynamodb-outbox/processor';
import * as redrive from 'dynamodb-outbox/redrive';
import * as relay from 'dynamodb-outbox/relay';
import * as testing from 'dynamodb-outbox/testing';
import { describe, expect, it } from 'vitest';

// Each entry point exports the errors its own functions throw, so a caller can catch them by
// class from the module it imported the function from (and OutboxError, their base, from each).
const config = root.defineConfig({ source: 'urn:test:errors', topics: [{ name: 'orders' }], routes: { order: 'orders' } });

/** What `run` throws or rejects with. */
async function failure(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('errors by entry point', () => {
  it('dynamodb-outbox: a bad config is a ConfigError, a bad write a WriteValidationError, both OutboxErrors', async () => {
    const badConfig = await failure(() => root.defineConfig({ source: 'urn:x', topics: [], routes: { order: 'nowhere' } }));
    expect(badConfig).toBeInstanceOf(root.ConfigError);
    const outbox = new root.Outbox({
      config,
      tableName: 'outbox',
      client: { send: () => Promise.reject(new Error('not called')) } as never,
    });
    const badWrite = await failure(() =>
      outbox.write({ events: [{ aggregate: { type: 'invoice', id: 'i-1' }, type: 'invoice.sent', data: {} }] }),
    );
    expect(badWrite).toBeInstanceOf(root.WriteValidationError);
    expect(badWrite).toBeInstanceOf(root.OutboxError);
  });

  it('dynamodb-outbox: data its declared schema refuses is an EventSchemaError, an OutboxError of the root', async () => {
    const catalog = root.defineConfig({
      source: 'urn:test:errors',
      topics: [{ name: 'orders' }],
      routes: { order: 'orders' },
      eventTypes: {
        'order.placed': {
          version: 1,
          schema: { '~standard': { version: 1, vendor: 'test', validate: () => ({ issues: [{ message: 'no' }] }) } },
        },
      },
    });
    const outbox = new root.Outbox({
      config: catalog,
      tableName: 'outbox',
      client: { config: {}, send: () => Promise.reject(new Error('not called')) } as never,
    });
    const error = await failure(() =>
      outbox.write({ events: [{ aggregate: { type: 'order', id: 'o-1' }, type: 'order.placed', data: {} }] }),
    );
    expect(error).toBeInstanceOf(root.EventSchemaError);
    expect(error).toBeInstanceOf(root.OutboxError);
    expect(error).toMatchObject({ code: 'EVENT_DATA_INVALID' });
  });

  it('dynamodb-outbox/consumer: bad options are a ConsumerOptionsError and an OutboxError of that entry point', async () => {
    const error = await failure(() => consumer.createConsumer({ name: 'bad name!', sources: [], handlers: {}, inbox: {} as never }));
    expect(error).toBeInstanceOf(consumer.ConsumerOptionsError);
    expect(error).toBeInstanceOf(consumer.OutboxError);
  });

  it('dynamodb-outbox/relay: a relay without a topic ARN is a ConfigError, a missing variable an EnvironmentError', async () => {
    const noArn = await failure(
      () => new relay.Relay({ config, sns: {} as never, sqs: {} as never, topicArns: {}, deadLetterQueueUrl: 'https://q' }),
    );
    expect(noArn).toBeInstanceOf(relay.ConfigError);
    expect(await failure(() => relay.relayEnvironment({}))).toBeInstanceOf(relay.EnvironmentError);
  });

  it('dynamodb-outbox/processor: a processor with no low-latency type is a ProcessorOptionsError', async () => {
    const error = await failure(() =>
      processor.createProcessor({
        config,
        sns: {} as never,
        sqs: {} as never,
        topicArns: { orders: 'arn:aws:sns:eu-west-1:123456789012:orders' },
        deadLetterQueueUrl: 'https://q',
        streams: {} as never,
        streamArn: 'arn',
        document: {} as never,
        leaseTableName: 'leases',
      }),
    );
    expect(error).toBeInstanceOf(processor.ProcessorOptionsError);
    expect(error).toBeInstanceOf(processor.OutboxError);
  });

  it('dynamodb-outbox/redrive: a DLQ redriven onto itself is a RedriveOptionsError', async () => {
    const url = 'https://sqs.eu-west-1.amazonaws.com/123456789012/dlq';
    const error = await failure(() =>
      redrive.redriveQueueDlq({ sqs: new SQSClient({ region: 'eu-west-1' }), queueUrl: url, targetQueueUrl: url }),
    );
    expect(error).toBeInstanceOf(redrive.RedriveOptionsError);
    expect(error).toBeInstanceOf(redrive.OutboxError);
  });

  it('dynamodb-outbox/cdk: a prop out of range is an OutboxPropsError', async () => {
    const stack = new Stack(new App(), 'Errors');
    const error = await failure(() => new cdk.Outbox(stack, 'Outbox', { config, relayMemorySize: 1 }));
    expect(error).toBeInstanceOf(cdk.OutboxPropsError);
    expect(error).toBeInstanceOf(cdk.OutboxError);
  });

  it('dynamodb-outbox/testing: a subscriber of an unknown topic is a LocalStackError, before anything starts', async () => {
    const error = await failure(() => testing.startOutboxTestStack({ config, subscribers: [{ name: 'billing', topic: 'nowhere' }] }));
    expect(error).toBeInstanceOf(testing.LocalStackError);
    expect(error).toBeInstanceOf(testing.OutboxError);
  });

  it('every entry point hands out the one OutboxError class, so one catch covers them all', () => {
    for (const entry of [consumer, relay, processor, redrive, cdk, testing]) expect(entry.OutboxError).toBe(root.OutboxError);
  });
});
