import { defineConfig } from 'dynamodb-outbox';
import { LocalStackError, startDynamoDbLocal, startOutboxTestStack } from 'dynamodb-outbox/testing';
import { describe, expect, it } from 'vitest';
import { PolyfillAbortController } from '../helpers/polyfill-signal.js';

/*
 * A `signal` that does not behave like an AbortSignal is refused before anything starts, as any
 * option of the wrong shape is; one that does, from a polyfill or another realm, is taken.
 */

const config = defineConfig({ source: 'urn:test:signal', topics: [{ name: 'orders' }], routes: { order: 'orders' } });
const ALLOWED =
  'allowed: an AbortSignal (such as AbortController().signal or AbortSignal.timeout(ms)) or an object that behaves as one (a boolean `aborted`, and `addEventListener` and `removeEventListener` functions), or leave it out';

describe('the start signal option', () => {
  it('startOutboxTestStack refuses a signal that is no AbortSignal, naming it', async () => {
    const error = await startOutboxTestStack({ config, signal: new AbortController() as never }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(LocalStackError);
    expect(error).toMatchObject({ code: 'INVALID_OPTION', message: expect.stringMatching(/^signal is .*; /) });
    expect((error as Error).message).toContain(ALLOWED);
  });

  it.each([
    ['"abort"', 'abort'],
    ['true', true],
    ['{}', {}],
    ['{"aborted":false}', { aborted: false }],
    ['null', null],
  ])('startDynamoDbLocal refuses the signal %s, before Java starts', async (shown, signal) => {
    const error = await startDynamoDbLocal({ signal: signal as never }).catch((e: unknown) => e);

    expect(error).toMatchObject({ name: 'LocalStackError', code: 'INVALID_OPTION', message: `signal is ${shown}; ${ALLOWED}` });
  });

  it('startDynamoDbLocal starts no Java when the signal has aborted already', async () => {
    const error = await startDynamoDbLocal({ signal: AbortSignal.abort(new Error('cancelled')) }).catch((e: unknown) => e);

    expect(error).toMatchObject({
      code: 'START_ABORTED',
      message:
        'the start was aborted while starting DynamoDB Local (cancelled); what it had started has been stopped, nothing is left running',
    });
  });

  // It was refused as no AbortSignal, though it behaves as one.
  it('takes an AbortSignal of a polyfill or another realm: one aborted already starts nothing', async () => {
    const controller = new PolyfillAbortController();
    controller.abort(new Error('cancelled'));

    const alone = await startDynamoDbLocal({ signal: controller.signal }).catch((e: unknown) => e);
    const stack = await startOutboxTestStack({ config, signal: controller.signal }).catch((e: unknown) => e);

    expect(alone).toMatchObject({
      code: 'START_ABORTED',
      message: expect.stringMatching(/^the start was aborted while starting DynamoDB Local \(cancelled\); /),
      cause: new Error('cancelled'),
    });
    expect(stack).toMatchObject({
      code: 'START_ABORTED',
      message: expect.stringMatching(/^the start was aborted before anything had started \(cancelled\); /),
      cause: new Error('cancelled'),
    });
    expect(controller.listeners).toBe(0);
  });
});
