import { describe, expect, it } from 'vitest';
import { config as appConfig } from '../../examples/orders/outbox.config.js';
import { defineConfig } from '../../shared/config.js';
import { LocalStackError } from '../../shared/local/errors.js';
import { startLocalStack } from '../../shared/local/stack/local-stack.js';
import { portBindError } from '../../shared/local/stack/ports.js';
import { checkedHandlers } from '../../shared/local/stack/test-stack-checks.js';
import type { LocalStackOptions } from '../../shared/local/stack/types.js';
import { freePorts } from '../helpers/free-ports.js';
import { dynamoDbLocalJavaOn as javaOn } from '../helpers/processes.js';

/*
 * A start that fails (not aborted) stops what had started; a part that then fails to stop (here a
 * low-latency processor whose stop rejects) is not hidden behind the start's failure, whether that
 * failure has a cause of its own or not: the error's `errors` holds it, a LocalStackError's message
 * names it, and the other parts still stop, DynamoDB Local's Java included.
 */
const config = defineConfig({ ...appConfig, lowLatencyAggregateTypes: ['payment'] });
const topic = config.topics[0]?.name as string;

/** The start's rejection, with the ports it was given; a stack that starts is stopped and fails the test. */
async function failedStart(handler: NonNullable<LocalStackOptions['subscribers']>[number]['handler'], stuck: Error) {
  const [dynamoDbPort, emulatorPort] = await freePorts(2);
  const error = await startLocalStack({
    config,
    dynamoDbPort,
    emulatorPort,
    archiverMetrics: 'discard',
    subscribers: checkedHandlers([{ name: 'billing', topic, ...(handler === undefined ? {} : { handler }) }]),
    processor: async () => ({
      stop: async () => {
        throw stuck;
      },
    }),
  }).then(
    async (stack) => {
      await stack.stop().catch(() => {});
      return new Error('the start resolved');
    },
    (e: unknown) => e,
  );
  return { error, dynamoDbPort, emulatorPort };
}

describe('startLocalStack failing while a part fails to stop', { timeout: 120_000 }, () => {
  it('a failure with a cause of its own holds the stop failure in errors, and the rest stops', async () => {
    const stuck = new Error('the lease could not be given up');
    const own = new Error('ResourceNotFoundException: inbox table');
    const { error, dynamoDbPort, emulatorPort } = await failedStart(() => {
      throw new Error('the inbox table is missing', { cause: own });
    }, stuck);

    expect(error).toMatchObject({ message: 'the inbox table is missing', cause: own });
    expect((error as { errors?: unknown }).errors).toEqual([stuck]);
    expect(javaOn(dynamoDbPort)).toEqual([]);
    for (const port of [dynamoDbPort, emulatorPort]) expect(await portBindError(port)).toBeUndefined();
  });

  it('a LocalStackError names the part that failed to stop in its message and holds it in errors, as START_ABORTED does', async () => {
    const stuck = new Error('the lease could not be given up');
    const { error, dynamoDbPort } = await failedStart((() => undefined) as never, stuck);

    expect(error).toBeInstanceOf(LocalStackError);
    expect(error).toMatchObject({
      code: 'INVALID_OPTION',
      message:
        "subscribers[0].handler returned undefined; allowed: a function that returns an SQS Lambda handler, such as ({ document, tableName }) => createConsumer({ … }).handler; of what the start had started, 1 part failed to stop (the lease could not be given up: it is in the error's `errors`), the others have been stopped",
    });
    expect((error as LocalStackError).errors).toEqual([stuck]);
    expect((error as LocalStackError).cause).toBeUndefined();
    expect(javaOn(dynamoDbPort)).toEqual([]);
  });
});
