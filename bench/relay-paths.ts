import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { PublishBatchCommand, type PublishBatchRequestEntry, PublishCommand } from '@aws-sdk/client-sns';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import type { FauxqsServer } from 'fauxqs';
import type { OutboxConfig } from '../shared/config.js';
import { messageAttributes, type SlotMessage } from '../shared/envelope.js';
import type { LocalClients } from '../shared/local/clients.js';
import type { StreamHandler } from '../shared/local/event-source/stream-runner.js';
import { decodeStreamRecord } from '../shared/relay/decode.js';
import { createRelayHandler } from '../shared/relay/handler.js';
import { Relay } from '../shared/relay/index.js';
import { publishEntry } from '../shared/relay/publish-entry.js';

/*
 * The paths `bench/relay.ts` measures side by side, and the emulator plumbing they share: the
 * relay handler, the hand-rolled relay, a bare batching relay and the ceiling.
 */

/** Items in consecutive groups of ten, the most entries one `PublishBatch` takes. */
const inTens = <T>(items: readonly T[]): T[][] =>
  Array.from({ length: Math.ceil(items.length / 10) }, (_, i) => items.slice(i * 10, i * 10 + 10));

export async function inParallel(limit: number, count: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

export interface Pipe {
  readonly topicArn: string;
  readonly queueUrl: string;
  /** Deletes the topic and the queue, and with them the messages the emulator keeps in this process's memory. */
  remove(): void;
}

/** A topic (FIFO or standard) with a raw-delivery queue of the same kind behind it. */
export function pipe(server: FauxqsServer, name: string, fifo: boolean): Pipe {
  const suffix = fifo ? '.fifo' : '';
  const [topic, queue] = [`${name}-topic${suffix}`, `${name}${suffix}`];
  const { topicArn } = server.createTopic(topic, { attributes: fifo ? { FifoTopic: 'true' } : {} });
  const { queueUrl } = server.createQueue(queue, { attributes: fifo ? { FifoQueue: 'true' } : {} });
  server.subscribe({ topic, queue, attributes: { RawMessageDelivery: 'true' } });
  return {
    topicArn,
    queueUrl,
    remove: () => {
      server.deleteTopic(topic);
      server.deleteQueue(queue);
    },
  };
}

/** Messages in a queue, asked the way a client would (inspecting the queue copies every message: too slow to poll). */
export async function queued(clients: LocalClients, queueUrl: string): Promise<number> {
  const { Attributes } = await clients.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages ?? 0);
}

export async function until(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('benchmark phase did not finish in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function relayHandler(clients: LocalClients, cfg: OutboxConfig, topicArn: string, dlqUrl: string) {
  return createRelayHandler({
    relay: new Relay({
      config: cfg,
      sns: clients.sns,
      sqs: clients.sqs,
      topicArns: { [cfg.topics[0]!.name]: topicArn },
      deadLetterQueueUrl: dlqUrl,
    }),
    logger: new Logger({ serviceName: 'bench', logLevel: 'SILENT' }),
    metrics: new Metrics({ namespace: 'Bench', serviceName: 'bench' }),
  });
}

/** The usual hand-rolled relay: for each record, for each event, one Publish, awaited in turn. */
export const handRolled =
  (clients: LocalClients, cfg: OutboxConfig, topicArn: string): StreamHandler =>
  async ({ Records }) => {
    const fifo = cfg.topics[0]!.fifo;
    for (const record of Records) {
      const decoded = decodeStreamRecord(record, cfg);
      if (decoded.status !== 'decoded') continue;
      for (const m of decoded.messages) {
        await clients.sns.send(
          new PublishCommand({
            TopicArn: topicArn,
            Message: m.body,
            MessageAttributes: messageAttributes(m.type, m.aggregateType),
            ...(fifo ? { MessageGroupId: `${m.aggregateType}#${m.aggregateId}`, MessageDeduplicationId: m.id } : {}),
          }),
        );
      }
    }
    return { batchItemFailures: [] };
  };

/** The same envelopes, pre-built, straight to SNS with PublishBatch at the relay's concurrency. */
export async function ceiling(
  clients: LocalClients,
  messages: readonly SlotMessage[],
  cfg: OutboxConfig,
  topicArn: string,
  queueUrl: string,
  target: number,
): Promise<number> {
  const entries = messages.map((m, i) => publishEntry(m, cfg.topics[0]!, `e${i % 10}`));
  const batches = inTens(entries);
  const started = performance.now();
  await inParallel(cfg.relay.publishConcurrency, batches.length, async (i) => {
    await clients.sns.send(new PublishBatchCommand({ TopicArn: topicArn, PublishBatchRequestEntries: batches[i] }));
  });
  await until(async () => (await queued(clients, queueUrl)) >= target, 600_000);
  return (performance.now() - started) / 1000;
}

/**
 * A bare batching relay, the least any batching relay does: each record decoded, its envelopes sent
 * with PublishBatch in tens at the relay's concurrency, and nothing more: no order per aggregate,
 * no retries, no dead letters (an entry refused fails the whole invocation).
 */
export const bareRelay =
  (clients: LocalClients, cfg: OutboxConfig, topicArn: string): StreamHandler =>
  async ({ Records }) => {
    const entries: PublishBatchRequestEntry[] = [];
    for (const record of Records) {
      const decoded = decodeStreamRecord(record, cfg);
      if (decoded.status !== 'decoded') continue;
      for (const m of decoded.messages) entries.push(publishEntry(m, cfg.topics[0]!, `e${entries.length % 10}`));
    }
    const batches = inTens(entries);
    await inParallel(cfg.relay.publishConcurrency, batches.length, async (i) => {
      const { Failed = [] } = await clients.sns.send(
        new PublishBatchCommand({ TopicArn: topicArn, PublishBatchRequestEntries: batches[i] }),
      );
      if (Failed.length > 0) throw new Error(`${Failed.length} entries refused: ${Failed[0]?.Message}`);
    });
    return { batchItemFailures: [] };
  };
