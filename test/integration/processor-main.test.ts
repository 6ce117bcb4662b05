import { afterEach, describe, expect, inject, it } from 'vitest';
import { serializeConfig } from '../../shared/config.js';
import { RELAY_ENV } from '../../shared/event-source.js';
import { PROCESSOR_ENV } from '../../shared/processor/index.js';
import { testConfig } from '../helpers/factories.js';
import { freePort, type ProcessorProcess, spawnMain } from '../helpers/processor-process.js';
import { waitFor } from '../helpers/wait.js';

const spawned: ProcessorProcess[] = [];
afterEach(async () => {
  for (const p of spawned.splice(0)) {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await p.exited;
  }
});

/** The ECS entry point's environment, every AWS endpoint at `endpoint`. */
async function environment(endpoint: string): Promise<NodeJS.ProcessEnv> {
  return {
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    AWS_ENDPOINT_URL_DYNAMODB_STREAMS: endpoint,
    AWS_ENDPOINT_URL_SNS: endpoint,
    AWS_ENDPOINT_URL_SQS: endpoint,
    [RELAY_ENV.config]: serializeConfig(testConfig({ lowLatencyAggregateTypes: ['payment'] })),
    [RELAY_ENV.topicArns]: JSON.stringify({
      'orders.fifo': 'arn:aws:sns:us-east-1:000000000000:orders.fifo',
      payments: 'arn:aws:sns:us-east-1:000000000000:payments',
    }),
    [RELAY_ENV.deadLetterQueueUrl]: `${endpoint}/000000000000/relay-dlq`,
    [PROCESSOR_ENV.streamArn]: 'arn:aws:dynamodb:ddblocal:000000000000:table/missing/stream/2025-01-01T00:00:00.000',
    [PROCESSOR_ENV.leaseTable]: 'missing-leases',
    [PROCESSOR_ENV.failedBatchBucket]: 'outbox-failed-batches',
    [PROCESSOR_ENV.workerId]: 'main-test',
    [PROCESSOR_ENV.failoverMs]: '2000',
    [PROCESSOR_ENV.healthPort]: String(await freePort()),
  };
}

const logged = (p: ProcessorProcess, text: string): boolean => p.output.some((line) => line.includes(text));

describe('the ECS entry point (functions/processor/main.ts)', () => {
  it('stops gracefully on SIGTERM while its start-up is still retrying, exiting 0', async () => {
    // Nothing listens there: every call fails to connect, a transient failure the start retries.
    const env = await environment('http://127.0.0.1:1');
    const p = spawnMain(env);
    spawned.push(p);
    await waitFor(() => logged(p, 'starting: the first shard sync'), { timeoutMs: 30_000, what: 'a retried start-up step' });
    // A start that retries is healthy: ECS must not replace the task while it waits out throttling.
    const health = await fetch(`http://127.0.0.1:${env[PROCESSOR_ENV.healthPort]}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ healthy: true, state: 'starting' });
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(logged(p, '"stopped"')).toBe(true);
    expect(logged(p, '"processor started"')).toBe(false);
  });

  it('exits 1 at once, naming the variable, when the environment is malformed', async () => {
    const p = spawnMain({ ...(await environment('http://127.0.0.1:1')), [RELAY_ENV.deadLetterQueueUrl]: 'relay-dlq' });
    spawned.push(p);
    expect(await p.exited).toBe(1);
    expect(logged(p, 'start-up failed')).toBe(true);
    expect(logged(p, 'OUTBOX_RELAY_DLQ_URL: got \\"relay-dlq\\"')).toBe(true);
  });

  it('exits 1 at once, naming the variable, when the stream ARN is the table ARN, before any call to AWS', async () => {
    // Nothing listens at the endpoint: a start that got as far as a call would retry, not exit.
    const env = await environment('http://127.0.0.1:1');
    const p = spawnMain({ ...env, [PROCESSOR_ENV.streamArn]: 'arn:aws:dynamodb:ddblocal:000000000000:table/missing' });
    spawned.push(p);
    expect(await p.exited).toBe(1);
    expect(logged(p, 'OUTBOX_STREAM_ARN: got \\"arn:aws:dynamodb:ddblocal:000000000000:table/missing\\"')).toBe(true);
    expect(logged(p, 'starting: the first shard sync')).toBe(false);
  });

  it('exits 1 at once, saying why, when the stream does not exist', async () => {
    const p = spawnMain(await environment(inject('dynamodbEndpoint')));
    spawned.push(p);
    expect(await p.exited).toBe(1);
    expect(logged(p, 'start-up failed')).toBe(true);
    expect(logged(p, 'PROCESSOR_START_FAILED')).toBe(true);
  });
});
