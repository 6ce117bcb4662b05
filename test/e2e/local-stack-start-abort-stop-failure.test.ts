import { describe, expect, it } from 'vitest';
import { config as appConfig } from '../../examples/orders/outbox.config.js';
import { defineConfig } from '../../shared/config.js';
import { LocalStackError } from '../../shared/local/errors.js';
import { startLocalStack } from '../../shared/local/stack/local-stack.js';
import { portBindError } from '../../shared/local/stack/ports.js';
import { freePorts } from '../helpers/free-ports.js';
import { dynamoDbLocalJavaOn as javaOn } from '../helpers/processes.js';

/*
 * A start aborted by its signal stops what had started; a part that then fails to stop (here a
 * low-latency processor whose stop rejects) is not hidden behind the abort: START_ABORTED names it
 * and holds its failure, and the other parts still stop, DynamoDB Local's Java included.
 */
const config = defineConfig({ ...appConfig, lowLatencyAggregateTypes: ['payment'] });

describe('startLocalStack aborted while a part fails to stop', { timeout: 120_000 }, () => {
  it('rejects with START_ABORTED holding that failure, and stops the rest', async () => {
    const [dynamoDbPort, emulatorPort] = await freePorts(2);
    const controller = new AbortController();
    const stuck = new Error('the lease could not be given up');
    const error = await startLocalStack({
      config,
      dynamoDbPort,
      emulatorPort,
      archiverMetrics: 'discard',
      processor: async () => ({
        stop: async () => {
          throw stuck;
        },
      }),
      signal: controller.signal,
      onStep: (step) => {
        if (step === 'starting the consumers') controller.abort(new Error('the test is cancelled'));
      },
    }).then(
      async (stack) => {
        await stack.stop().catch(() => {});
        return new Error('the start resolved');
      },
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(LocalStackError);
    expect(error).toMatchObject({
      code: 'START_ABORTED',
      message:
        "the start was aborted while starting the consumers (the test is cancelled); of what it had started, 1 part failed to stop (the lease could not be given up: it is in the error's `errors`), the others have been stopped",
      cause: new Error('the test is cancelled'),
    });
    expect((error as LocalStackError).errors).toEqual([stuck]);
    expect(javaOn(dynamoDbPort)).toEqual([]);
    for (const port of [dynamoDbPort, emulatorPort]) expect(await portBindError(port)).toBeUndefined();
  });
});
