import { loadavg } from 'node:os';
import { PublishCommand } from '@aws-sdk/client-sns';
import { v7 as uuidv7 } from 'uuid';
import { localApp } from '../examples/orders/local-app.js';
import { config } from '../examples/orders/outbox.config.js';
import { startLocalStack } from '../shared/local/stack/local-stack.js';
import { machine, percentile, recordSection } from './report.js';

/*
 * Commit→delivery lag through the whole local stack (`npm start`'s orchestrator: API, write
 * helper, DynamoDB Local stream, local event source mapping, relay, SNS, SQS, consumer) against
 * its floor measured in the same run: the same envelope published straight to the same SNS
 * topic and consumed by the same consumer, so the difference is what the outbox path adds.
 * The two alternate in blocks at the same rate. Run: npm run bench:local
 */
const EVENTS = Number(process.env.BENCH_EVENTS ?? 300);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const BLOCK = 20;

process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const lags = new Map<string, number>();
const waiting = new Map<string, () => void>();
const stack = await startLocalStack({
  config,
  ...localApp(),
  apiPort: 0,
  onDelivery: ({ body, lagMs }) => {
    const { id } = JSON.parse(body) as { id: string };
    if (lagMs !== undefined && !lags.has(id)) lags.set(id, lagMs);
    waiting.get(id)?.();
  },
});

const delivered = (id: string): Promise<void> =>
  lags.has(id)
    ? Promise.resolve()
    : new Promise((resolve) =>
        waiting.set(id, () => {
          waiting.delete(id);
          resolve();
        }),
      );

/** An order placed through the API: the outbox path. */
const throughOutbox = async (): Promise<string> => {
  const response = await fetch(`${stack.apiUrl}/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ total: 42, currency: 'EUR' }),
  });
  const { events } = (await response.json()) as { events: { id: string }[] };
  return (events[0] as { id: string }).id;
};

/** The same kind of envelope published straight to the topic: the floor. */
const direct = async (): Promise<string> => {
  const id = uuidv7();
  const subject = `direct-${id}`;
  const now = new Date().toISOString();
  const envelope = {
    specversion: '1.0',
    id,
    source: config.source,
    type: 'order.placed',
    subject,
    time: now,
    datacontenttype: 'application/json',
    aggregatetype: 'order',
    aggregatesequence: 1,
    sequenceepoch: now,
    data: { total: 42, currency: 'EUR' },
  };
  await stack.clients.sns.send(
    new PublishCommand({
      TopicArn: stack.resources.topicArns['orders.fifo'],
      Message: JSON.stringify(envelope),
      MessageGroupId: `order#${subject}`,
      MessageDeduplicationId: id,
      MessageAttributes: {
        type: { DataType: 'String', StringValue: 'order.placed' },
        aggregatetype: { DataType: 'String', StringValue: 'order' },
      },
    }),
  );
  return id;
};

/** Sends `count` events at the bench rate and resolves with their lags once all are delivered. */
async function run(send: () => Promise<string>, count: number): Promise<number[]> {
  const ids: Promise<string>[] = [];
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const due = started + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    ids.push(send());
  }
  const sent = await Promise.all(ids);
  await Promise.all(sent.map(delivered));
  return sent.map((id) => lags.get(id) as number);
}

const loads: number[] = [];
const sampler = setInterval(() => loads.push(loadavg()[0] ?? 0), 1000);
let loadAverage = '';
try {
  await run(throughOutbox, 40);
  await run(direct, 40);
  const outbox: number[] = [];
  const floor: number[] = [];
  for (let done = 0; done < EVENTS; done += BLOCK) {
    outbox.push(...(await run(throughOutbox, BLOCK)));
    floor.push(...(await run(direct, BLOCK)));
  }
  const p = (xs: number[], q: number) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      q,
    );
  const f = (x: number) => x.toFixed(0);
  clearInterval(sampler);
  loadAverage = loads.length === 0 ? 'not sampled' : (loads.reduce((a, b) => a + b, 0) / loads.length).toFixed(1);
  const ratio50 = p(outbox, 50) / p(floor, 50);
  const ratio99 = p(outbox, 99) / p(floor, 99);
  const added = p(outbox, 50) - p(floor, 50);
  console.log(
    `commit→delivery p50 ${f(p(outbox, 50))} ms (p99 ${f(p(outbox, 99))}); direct publish→delivery p50 ${f(p(floor, 50))} ms (p99 ${f(p(floor, 99))}); ratio ${ratio50.toFixed(2)}`,
  );
  recordSection(
    'Local stack: commit→delivery lag',
    `Command: \`npm run bench:local\` — ${new Date().toISOString().slice(0, 10)}, ${machine()}, DynamoDB Local in memory, fauxqs in process.

An order placed through the example API (write helper → DynamoDB Local stream → local event source
mapping → relay handler → SNS FIFO topic → SQS FIFO queue → example consumer) against its floor: the
same envelope published straight to the same topic and consumed by the same consumer. ${EVENTS} events
each at ${RATE}/s, in alternating blocks of ${BLOCK} after a warm-up; lag from the envelope's \`time\` (the
commit, or the direct publish) to the consumer's acknowledgement, in ms.

| path | p50 | p99 |
| --- | --- | --- |
| outbox: commit → delivery | ${f(p(outbox, 50))} | ${f(p(outbox, 99))} |
| floor: direct publish → delivery | ${f(p(floor, 50))} | ${f(p(floor, 99))} |
| ratio outbox/floor | **${ratio50.toFixed(2)}** | ${ratio99.toFixed(2)} |

The outbox adds ${f(added)} ms at p50: the transaction itself (the envelope's \`time\` is taken when the
write is prepared), the stream poll (the event source mapping reads each shard four times a second,
as Lambda does: 125 ms on average), the relay invocation and its \`PublishBatch\`. The low-latency
processor (\`lowLatencyAggregateTypes\`) polls far more often. Load average of the machine during the
run: ${loadAverage}.`,
  );
} finally {
  clearInterval(sampler);
  await stack.stop();
}
