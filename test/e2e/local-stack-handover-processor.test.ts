import type { PublishBatchCommand } from '@aws-sdk/client-sns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config as appConfig } from '../../examples/orders/outbox.config.js';
import { defineConfig } from '../../shared/config.js';
import { type LocalStack, startLocalStack } from '../../shared/local/stack/local-stack.js';
import { startLocalProcessor } from '../../shared/local/stack/processor.js';
import { localRelayHandler } from '../../shared/local/stack/relay.js';
import type { PublishBatchClient } from '../../shared/relay/types.js';
import { waitFor } from '../helpers/wait.js';

// No low-latency type at all: the processor's only type is the one handed over to it.
const config = defineConfig({ ...appConfig, lowLatencyAggregateTypes: [], handoverAggregateTypes: ['payment'] });
let stack: LocalStack;
const published = { relay: [] as string[], processor: [] as string[] };
const errors: string[] = [];

/** The path's SNS client, noting the event ids it publishes. */
const noting = (sns: PublishBatchClient, ids: string[]): PublishBatchClient => ({
  send: (command: PublishBatchCommand, options) => {
    for (const entry of command.input.PublishBatchRequestEntries ?? []) ids.push((JSON.parse(entry.Message ?? '{}') as { id: string }).id);
    return sns.send(command, options);
  },
});

beforeAll(async () => {
  stack = await startLocalStack({
    config,
    relay: (deps) => localRelayHandler({ ...deps, sns: noting(deps.sns, published.relay) }, { metrics: 'discard' }),
    processor: (deps) =>
      startLocalProcessor({ ...deps, sns: noting(deps.sns, published.processor) }, (what, error) => errors.push(`${what}: ${error}`)),
    archiverMetrics: 'discard',
    onError: (source, error) => errors.push(`${source}: ${error}`),
  });
});

afterAll(async () => {
  await stack?.stop();
});

describe('local stack whose only processor type is a handed-over one', () => {
  it('starts the processor, and both paths publish the handed-over type', async () => {
    expect(stack.processorRunning).toBe(true);
    const { events } = await stack.outbox.write({
      events: [{ aggregate: { type: 'payment', id: 'p-1' }, type: 'payment.captured', data: { orderId: 'o-1', amount: 5 } }],
    });
    const id = events[0]!.id;
    await waitFor(() => published.relay.includes(id) && published.processor.includes(id), {
      timeoutMs: 30_000,
      what: 'the payment published by the relay and the processor',
    });
    expect(errors).toEqual([]);
  });
});
