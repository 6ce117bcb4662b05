import { context, type Span, type Tracer, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { batchBody } from '../../shared/envelope.js';
import { resetOtelApi } from '../../shared/tracing/otel-api.js';
import { batchCommitFixture, messages, statuses } from '../helpers/batch-commit.js';
import { anEnvelope } from '../helpers/envelopes.js';

const { applied, batchConsumer } = batchCommitFixture('consumer-unexpected-after-events');

const broken = new Error('tracer down');

/** A tracer provider whose span of message `m0` throws as it starts, or as it ends: after every event of the message was reported. */
function messageSpanThrowing(when: 'start' | 'end') {
  const real = new BasicTracerProvider();
  const throwing = () => {
    throw broken;
  };
  const wrap = (tracer: Tracer): Tracer =>
    new Proxy(tracer, {
      get: (target, property, receiver) =>
        property === 'startSpan'
          ? (...args: Parameters<Tracer['startSpan']>): Span => {
              if (args[1]?.attributes?.['messaging.message.id'] !== 'm0') return target.startSpan(...args);
              if (when === 'start') throwing();
              const span = target.startSpan(...args);
              return new Proxy(span, { get: (s, p, r) => (p === 'end' ? throwing : Reflect.get(s, p, r)) });
            }
          : Reflect.get(target, property, receiver),
    });
  trace.setGlobalTracerProvider({ getTracer: (...args: Parameters<typeof real.getTracer>) => wrap(real.getTracer(...args)) });
}

beforeEach(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterEach(() => {
  trace.disable();
  context.disable();
  resetOtelApi();
});

const unexpectedLines = (logs: readonly { level: string; message: string; attributes: Record<string, unknown> }[]) =>
  logs.filter((l) => l.level === 'error' && /failed unexpectedly/.test(l.message)).map((l) => l.attributes);

describe.each(['event', 'batch'] as const)("consumer, commit: '%s', a tracer that throws", (commit) => {
  it('keeps the outcome of a message whose every event was handled and reported when its span fails to end, and logs the error', async () => {
    messageSpanThrowing('end');
    const scope = `end-${commit}`;
    const { consumer, logs } = batchConsumer(scope, { commit });
    const events = [1, 2].map((sequence) => anEnvelope({ aggregateId: scope, sequence }));

    const { outcomes, batchItemFailures } = await consumer.process(messages([batchBody(events.map((e) => e.body))]));

    expect(outcomes).toEqual([expect.objectContaining({ status: 'processed', messageId: 'm0', eventId: events[1]?.id })]);
    expect(batchItemFailures).toEqual([]);
    expect(await applied(scope, scope)).toBe(2);
    expect(unexpectedLines(logs)).toEqual([expect.objectContaining({ messageIds: ['m0'], error: broken })]);
  });

  it('fails a message whose span fails to start, runs none of it, skips the rest of its FIFO group and keeps the other groups', async () => {
    messageSpanThrowing('start');
    const scope = `start-${commit}`;
    const { consumer } = batchConsumer(scope, { commit });
    const bodies = ['a', 'a', 'b'].map((group, i) => anEnvelope({ aggregateId: `${scope}-${group}`, sequence: i + 1 }).body);

    const { outcomes, batchItemFailures } = await consumer.process(messages(bodies, ['a', 'a', 'b']));

    expect(statuses(outcomes)).toEqual(['failed', 'skipped', 'processed']);
    expect(outcomes[0]).toMatchObject({ error: broken });
    expect(batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['m0', 'm1']);
    expect(await applied(scope, `${scope}-a`)).toBe(0);
    expect(await applied(scope, `${scope}-b`)).toBe(1);
  });
});
