import { SendMessageCommand } from '@aws-sdk/client-sqs';
import {
  type ConsumerOptions,
  createConsumer,
  createPoller,
  type MessageOutcome,
  PollError,
  type PollerOptions,
  type PollResult,
} from 'dynamodb-outbox/consumer';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { anEnvelope, TEST_SOURCE } from '../helpers/envelopes.js';
import { queueDepth } from '../helpers/fauxqs.js';
import { flakySqs, gapsBetween } from '../helpers/flaky-sqs.js';
import { Gate } from '../helpers/gate.js';
import { emulatorForFile, freshTable } from '../helpers/local.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';
import { waitFor } from '../helpers/wait.js';
import { captureWarnings } from '../helpers/warnings.js';

const { server, clients } = await emulatorForFile();
let tableName: string;
const cleanups: (() => unknown)[] = [];

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'consumer-poller'));
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function consumerWith(name: string, handlers: ConsumerOptions['handlers']) {
  const { logger, metrics } = recordingTelemetry();
  return createConsumer({ name, sources: [TEST_SOURCE], handlers, inbox: { document: clients.document, tableName }, logger, metrics });
}

/** A queue (visibility timeout 3 s, the shortest a poll takes, so what is not deleted comes back soon) holding `count` events. */
async function queueWith(name: string, count: number): Promise<{ queueUrl: string; eventIds: string[] }> {
  const dlq = server.createQueue(`${name}-dlq`);
  const { queueUrl } = server.createQueue(name, {
    attributes: { VisibilityTimeout: '3', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount: '10' }) },
  });
  const eventIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const event = anEnvelope({ aggregateId: `${name}-${i}` });
    eventIds.push(event.id);
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: event.body }));
  }
  return { queueUrl, eventIds };
}

/** A started poller whose batches and errors are recorded; stopped after the test. */
function started(options: PollerOptions) {
  const batches: PollResult[] = [];
  const errors: PollError[] = [];
  const poller = createPoller({
    waitTimeSeconds: 1,
    backoff: { baseDelayMs: 20, maxDelayMs: 50 },
    onBatch: (result) => void batches.push(result),
    onError: (error) => void errors.push(error),
    ...options,
  });
  poller.start();
  cleanups.push(() => poller.stop({ timeoutMs: 5_000 }));
  const outcomes = (): MessageOutcome[] => batches.flatMap((b) => b.result.outcomes);
  return { poller, batches, errors, outcomes };
}

describe('createPoller: keeps polling through failures', () => {
  it('goes on across failed receives and deletes, and handles every message once', async () => {
    const name = 'poller-flaky';
    const { queueUrl, eventIds } = await queueWith(name, 5);
    const flaky = flakySqs(server, { ReceiveMessageCommand: 3, DeleteMessageBatchCommand: 2 });
    cleanups.push(flaky.destroy);
    const handled: string[] = [];
    const consumer = consumerWith(name, { 'order.placed': { handle: (event) => void handled.push(event.id) } });

    const { errors, outcomes, poller } = started({ sqs: flaky.sqs, queueUrl, consumer, maxMessages: 2, visibilityTimeoutSeconds: 3 });
    await waitFor(() => queueDepth(server, name) === 0, { timeoutMs: 30_000, what: 'every message deleted' });

    expect(poller.running).toBe(true);
    expect([...handled].sort()).toEqual([...eventIds].sort());
    expect(errors.map((e) => e.phase)).toEqual(['receive', 'receive', 'receive', 'delete', 'delete']);
    for (const error of errors) {
      expect(error).toBeInstanceOf(PollError);
      expect(error).toMatchObject({ code: 'POLL_FAILED', queueUrl, cause: { code: 'ECONNRESET' } });
    }
    // A failed delete still reports the batch it processed; its messages came back as duplicates.
    const [firstDelete] = errors.filter((e) => e.phase === 'delete');
    expect(firstDelete?.batch?.result.outcomes.map((o) => o.status)).toContain('processed');
    expect(firstDelete?.message).toContain('they come back after their visibility timeout and are acknowledged then as duplicates');
    expect(outcomes().filter((o) => o.status === 'processed')).toHaveLength(5);
    expect(outcomes().filter((o) => o.status === 'duplicate').length).toBeGreaterThanOrEqual(1);
    expect(queueDepth(server, `${name}-dlq`)).toBe(0);
  });

  it('backs off with jitter after a failed receive: at least half the delay, every time', async () => {
    const { queueUrl } = await queueWith('poller-backoff', 1);
    const flaky = flakySqs(server, { ReceiveMessageCommand: 3 });
    cleanups.push(flaky.destroy);
    const consumer = consumerWith('poller-backoff', { 'order.placed': { handle: () => {} } });

    const { outcomes } = started({ sqs: flaky.sqs, queueUrl, consumer, backoff: { baseDelayMs: 300, maxDelayMs: 300 } });
    await waitFor(() => outcomes().length === 1, { timeoutMs: 15_000, what: 'the message handled' });

    const gaps = gapsBetween(flaky.calls, 'ReceiveMessageCommand').filter((g) => g.afterFailure);
    expect(gaps).toHaveLength(3);
    for (const gap of gaps) expect(gap.ms).toBeGreaterThanOrEqual(150);
  });

  it('reports a consumer that throws as a process failure, and handles the batch when it comes back', async () => {
    const name = 'poller-process';
    const { queueUrl, eventIds } = await queueWith(name, 1);
    const real = consumerWith(name, { 'order.placed': { handle: () => {} } });
    let calls = 0;
    const consumer = {
      process: (...args: Parameters<typeof real.process>) =>
        ++calls === 1 ? Promise.reject(new Error('inbox table unreachable')) : real.process(...args),
    };

    const { errors, outcomes } = started({ sqs: clients.sqs, queueUrl, consumer, visibilityTimeoutSeconds: 3 });
    await waitFor(() => outcomes().some((o) => o.status === 'processed'), { timeoutMs: 15_000, what: 'the message handled' });

    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ phase: 'process', batch: undefined });
    expect(errors[0]?.message).toMatch(
      /failed at process: Error \(inbox table unreachable\); the consumer threw on the batch of 1, so none was deleted/,
    );
    expect(outcomes()).toMatchObject([{ status: 'processed', eventId: eventIds[0] }]);
  });

  it('backs off after a batch whose every message failed, sparing their receives', async () => {
    const { queueUrl } = await queueWith('poller-all-failed', 1);
    const flaky = flakySqs(server);
    cleanups.push(flaky.destroy);
    const consumer = consumerWith('poller-all-failed', {
      'order.placed': {
        handle: () => {
          throw new Error('payment service down');
        },
      },
    });

    const { batches, errors } = started({
      sqs: flaky.sqs,
      queueUrl,
      consumer,
      visibilityTimeoutSeconds: 3,
      retryDelaySeconds: 0,
      backoff: { baseDelayMs: 400, maxDelayMs: 400 },
    });
    await waitFor(() => batches.length >= 3, { timeoutMs: 15_000, what: 'three failed batches' });

    // The message is visible again at once (retryDelaySeconds: 0): only the backoff spaces the receives.
    const receives = flaky.calls.sent.filter((c) => c.command === 'ReceiveMessageCommand').map((c) => c.at);
    expect(receives[1]! - receives[0]!).toBeGreaterThanOrEqual(200);
    expect(receives[2]! - receives[1]!).toBeGreaterThanOrEqual(200);
    expect(batches.every((b) => b.result.outcomes.every((o) => o.status === 'failed'))).toBe(true);
    expect(errors).toEqual([]);
  });
});

describe('createPoller: outcomes, stop and concurrency', () => {
  it("reports each batch's outcomes to onBatch, rejections included, and a throwing onBatch to onError", async () => {
    const name = 'poller-outcomes';
    const { queueUrl, eventIds } = await queueWith(name, 1);
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'not json' }));
    const consumer = consumerWith(name, { 'order.placed': { handle: () => {} } });
    const seen: PollResult[] = [];

    const { errors } = started({
      sqs: clients.sqs,
      queueUrl,
      consumer,
      onBatch: (result) => {
        seen.push(result);
        throw new Error('dashboard down');
      },
    });
    await waitFor(() => seen.flatMap((b) => b.result.outcomes).length >= 2, { timeoutMs: 15_000, what: 'both outcomes' });

    const statuses = seen.flatMap((b) => b.result.outcomes).map((o) => ('eventId' in o ? `${o.status} ${o.eventId}` : o.status));
    expect(statuses.sort()).toEqual([`processed ${eventIds[0]}`, 'rejected']);
    expect(seen.reduce((sum, b) => sum + b.acknowledged, 0)).toBe(1);
    expect(errors.length).toBe(seen.length);
    expect(errors[0]).toMatchObject({ phase: 'on-batch', batch: seen[0], cause: { message: 'dashboard down' } });
  });

  it('stops after the batch in flight is handled and deleted, not before', async () => {
    const name = 'poller-stop';
    const { queueUrl } = await queueWith(name, 1);
    const gate = new Gate();
    gate.close();
    const events: string[] = [];
    const consumer = consumerWith(name, {
      'order.placed': {
        handle: async () => {
          events.push('handling');
          await gate.passed();
          events.push('handled');
        },
      },
    });
    const reported: PollResult[] = [];
    const onBatch = (result: PollResult) => {
      events.push('batch reported');
      reported.push(result);
    };
    const { poller } = started({ sqs: clients.sqs, queueUrl, consumer, onBatch });
    await waitFor(() => events.includes('handling'), { what: 'the handler running' });

    const stopping = poller.stop().then((result) => {
      events.push('stopped');
      return result;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual(['handling']);
    gate.open();

    expect(await stopping).toEqual({ status: 'drained' });
    expect(events).toEqual(['handling', 'handled', 'batch reported', 'stopped']);
    expect(reported).toMatchObject([{ received: 1, acknowledged: 1 }]);
    expect(queueDepth(server, name)).toBe(0);
  });

  it('gives up waiting after timeoutMs, saying how many batches are still in flight', async () => {
    const { queueUrl } = await queueWith('poller-stop-timeout', 1);
    const gate = new Gate();
    gate.close();
    let handling = false;
    const consumer = consumerWith('poller-stop-timeout', {
      'order.placed': {
        handle: async () => {
          handling = true;
          await gate.passed();
        },
      },
    });
    const { poller } = started({ sqs: clients.sqs, queueUrl, consumer });
    cleanups.push(() => gate.open());
    await waitFor(() => handling, { what: 'the handler running' });

    expect(await poller.stop({ timeoutMs: 200 })).toEqual({ status: 'timed-out', inFlight: 1 });
  });

  it('cuts a long poll short on stop', async () => {
    const { queueUrl } = server.createQueue('poller-idle');
    const consumer = consumerWith('poller-idle', { 'order.placed': { handle: () => {} } });
    const flaky = flakySqs(server);
    cleanups.push(flaky.destroy);
    // The signal each receive was sent with: stop() must abort the one under way, not wait out its 20 s.
    const signals: (AbortSignal | undefined)[] = [];
    const send = flaky.sqs.send.bind(flaky.sqs) as (command: object, options?: { abortSignal?: AbortSignal }) => Promise<unknown>;
    flaky.sqs.send = ((command: object, options?: { abortSignal?: AbortSignal }) => {
      if (command.constructor.name === 'ReceiveMessageCommand') signals.push(options?.abortSignal);
      return send(command, options);
    }) as typeof flaky.sqs.send;
    const { poller } = started({ sqs: flaky.sqs, queueUrl, consumer, waitTimeSeconds: 20 });
    await waitFor(() => (flaky.calls.inFlight.get('ReceiveMessageCommand') ?? 0) === 1, { what: 'a long poll under way' });

    expect(await poller.stop()).toEqual({ status: 'drained' });
    expect(signals).toHaveLength(1);
    expect(signals[0]?.aborted).toBe(true);
    expect(flaky.calls.inFlight.get('ReceiveMessageCommand')).toBe(0);
  });

  it('holds more than 10 long polls at once on its stop signal without Node’s listener-leak warning', async () => {
    const capture = captureWarnings();
    cleanups.push(() => capture.stop());
    const { queueUrl } = server.createQueue('poller-many-loops');
    const consumer = consumerWith('poller-many-loops', { 'order.placed': { handle: () => {} } });
    const flaky = flakySqs(server);
    cleanups.push(flaky.destroy);
    const { poller } = started({ sqs: flaky.sqs, queueUrl, consumer, concurrency: 12, waitTimeSeconds: 20 });
    await waitFor(() => (flaky.calls.inFlight.get('ReceiveMessageCommand') ?? 0) === 12, { what: 'twelve long polls under way' });

    expect(await poller.stop()).toEqual({ status: 'drained' });
    expect(capture.warnings).toEqual([]);
  });

  it('runs at most `concurrency` batches at once, and uses them all', async () => {
    const name = 'poller-concurrency';
    const { queueUrl } = await queueWith(name, 8);
    const flaky = flakySqs(server);
    cleanups.push(flaky.destroy);
    const gate = new Gate();
    gate.close();
    let active = 0;
    let maxActive = 0;
    let done = 0;
    const consumer = consumerWith(name, {
      'order.placed': {
        handle: async () => {
          maxActive = Math.max(maxActive, ++active);
          await gate.passed();
          active--;
          done++;
        },
      },
    });

    started({ sqs: flaky.sqs, queueUrl, consumer, concurrency: 2, maxMessages: 1 });
    await waitFor(() => active === 2, { what: 'two handlers running' });
    // Each loop received once and is in its batch; a third loop would have received at the start too.
    expect(flaky.calls.sent.filter((c) => c.command === 'ReceiveMessageCommand')).toHaveLength(2);
    expect(flaky.calls.inFlight.get('ReceiveMessageCommand') ?? 0).toBe(0);
    gate.open();
    await waitFor(() => done === 8, { timeoutMs: 20_000, what: 'all eight handled' });

    expect(maxActive).toBe(2);
  });
});
