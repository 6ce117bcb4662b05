import { defineConfig } from 'dynamodb-outbox';
import { LocalStackError, startDynamoDbLocal, startOutboxTestStack } from 'dynamodb-outbox/testing';
import { describe, expect, it } from 'vitest';

/* A `signal` that is no AbortSignal is refused before anything starts, as any option of the wrong shape is. */

const config = defineConfig({ source: 'urn:test:signal', topics: [{ name: 'orders' }], routes: { order: 'orders' } });
const ALLOWED = 'allowed: an AbortSignal (such as AbortController().signal or AbortSignal.timeout(ms)), or none';

describe('the start signal option', () => {
  it('startOutboxTestStack refuses a signal that is no AbortSignal, naming it', async () => {
    const error = await startOutboxTestStack({ config, signal: new AbortController() as never }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(LocalStackError);
    expect(error).toMatchObject({ code: 'INVALID_OPTION', message: expect.stringMatching(/^signal is .*; /) });
    expect((error as Error).message).toContain(ALLOWED);
  });

  it('startDynamoDbLocal refuses a signal that is no AbortSignal, before Java starts', async () => {
    const error = await startDynamoDbLocal({ signal: 'abort' as never }).catch((e: unknown) => e);

    expect(error).toMatchObject({ name: 'LocalStackError', code: 'INVALID_OPTION', message: `signal is "abort"; ${ALLOWED}` });
  });

  it('startDynamoDbLocal starts no Java when the signal has aborted already', async () => {
    const error = await startDynamoDbLocal({ signal: AbortSignal.abort(new Error('cancelled')) }).catch((e: unknown) => e);

    expect(error).toMatchObject({
      code: 'START_ABORTED',
      message:
        'the start was aborted while starting DynamoDB Local (cancelled); what it had started has been stopped, nothing is left running',
    });
  });
});
