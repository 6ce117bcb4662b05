import { defineConfig } from 'dynamodb-outbox';
import { createConsumer, eventHandler } from 'dynamodb-outbox/consumer';
import { LocalStackError, type OutboxTestSqsHandler, startOutboxTestStack } from 'dynamodb-outbox/testing';
import { expect, it } from 'vitest';
import { checkPortFree } from '../../shared/local/stack/ports.js';
import { freePorts } from '../helpers/free-ports.js';
import { startRefusal } from '../helpers/start-refusal.js';

const config = defineConfig({
  source: 'urn:test:handler-factory',
  topics: [{ name: 'orders.fifo', fifo: true }],
  routes: { order: 'orders.fifo' },
});

it('refuses a handler factory that returns the consumer rather than its handler, failing the start and leaving nothing running', async () => {
  const [dynamoDbPort, emulatorPort] = await freePorts(2);
  const started = startOutboxTestStack({
    config,
    dynamoDbPort,
    emulatorPort,
    subscribers: [
      {
        name: 'billing',
        topic: 'orders.fifo',
        // The mistake: createConsumer(…) where createConsumer(…).handler was meant.
        handler: ({ document, tableName }) =>
          createConsumer({
            name: 'billing',
            sources: [config.source],
            inbox: { document, tableName },
            handlers: { 'order.placed': eventHandler({ handle: () => {} }) },
          }) as unknown as OutboxTestSqsHandler,
      },
    ],
  });
  const error = await startRefusal(started);

  expect(error).toBeInstanceOf(LocalStackError);
  expect(error).toMatchObject({
    code: 'INVALID_OPTION',
    message:
      'subscribers[0].handler returned an object with a handler function (createConsumer(…) rather than createConsumer(…).handler?); allowed: a function that returns an SQS Lambda handler, such as ({ document, tableName }) => createConsumer({ … }).handler',
  });
  // DynamoDB Local and the emulator were stopped: both ports can be taken again.
  await checkPortFree(dynamoDbPort, 'DynamoDB Local');
  await checkPortFree(emulatorPort, 'the SNS/SQS emulator');
}, 120_000);
