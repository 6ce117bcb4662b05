import { describe, expect, it } from 'vitest';
import { config } from '../../examples/orders/outbox.config.js';
import { startDynamoDbLocal } from '../../shared/local/stack/dynamodb-local.js';
import { startLocalStack } from '../../shared/local/stack/local-stack.js';
import { freePort, portBindError } from '../../shared/local/stack/ports.js';
import { abortWhileJavaStarts } from '../helpers/abort-while-java-starts.js';
import { PolyfillAbortController } from '../helpers/polyfill-signal.js';
import { dynamoDbLocalJavaOn as javaOn } from '../helpers/processes.js';

/*
 * A start's `signal` from a polyfill or another realm aborts it as Node's own does: DynamoDB
 * Local's Java ends, what had started stops, and the start leaves no listener on the signal.
 */
describe('a start given an AbortSignal of a polyfill', { timeout: 120_000 }, () => {
  it('startDynamoDbLocal ends Java when it aborts while Java starts', async () => {
    const controller = new PolyfillAbortController();
    const { port, error } = await abortWhileJavaStarts(controller, new Error('cancelled'));

    expect(error).toMatchObject({ name: 'LocalStackError', code: 'START_ABORTED', cause: new Error('cancelled') });
    expect((error as Error).message).toMatch(/^the start was aborted while starting DynamoDB Local \(cancelled\); /);
    expect(javaOn(port)).toEqual([]);
    expect(await portBindError(port)).toBeUndefined();
    expect(controller.listeners).toBe(0);
  });

  it('startDynamoDbLocal that answers leaves no listener on it', async () => {
    const controller = new PolyfillAbortController();
    const ddb = await startDynamoDbLocal({ signal: controller.signal });
    await ddb.stop();

    expect(controller.listeners).toBe(0);
  });

  it('startLocalStack stops what had started when it aborts between steps', async () => {
    const dynamoDbPort = await freePort();
    const controller = new PolyfillAbortController();
    const error = await startLocalStack({
      config,
      dynamoDbPort,
      signal: controller.signal,
      onStep: (step) => {
        if (step === 'creating the outbox table') controller.abort(new Error('cancelled'));
      },
    }).then(
      async (stack) => {
        await stack.stop();
        return new Error('the start resolved');
      },
      (e: unknown) => e,
    );

    expect(error).toMatchObject({
      code: 'START_ABORTED',
      message: expect.stringMatching(/^the start was aborted while creating the outbox table \(cancelled\); /),
    });
    expect(javaOn(dynamoDbPort)).toEqual([]);
    expect(controller.listeners).toBe(0);
  });
});
