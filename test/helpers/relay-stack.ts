import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import type { OutboxConfig } from '../../shared/config.js';
import { type OutboxEnvelope, parseEnvelope } from '../../shared/envelope.js';
import { relayEventSourceSettings } from '../../shared/event-source.js';
import type { LocalClients } from '../../shared/local/clients.js';
import { StreamRunner } from '../../shared/local/event-source/stream-runner.js';
import { createRelayHandler, type RelayHandler } from '../../shared/relay/handler.js';
import { type PublishBatchClient, Relay } from '../../shared/relay/index.js';
import { freshTable, testClients } from './local.js';
import { type EventWriter, eventWriter } from './slot-writer.js';

/** A subscriber queue's name for a topic: FIFO topics get FIFO queues. */
export const subscriberQueue = (topicName: string): string =>
  topicName.endsWith('.fifo') ? `${topicName.slice(0, -5)}-subscriber.fifo` : `${topicName}-subscriber`;

export const RELAY_DLQ = 'relay-dlq';
export const ON_FAILURE_QUEUE = 'relay-on-failure';

/** fauxqs with the config's topics, a raw-delivery subscriber queue per topic, the relay DLQ and the on-failure queue. */
export interface RelayTestStack {
  readonly server: FauxqsServer;
  readonly clients: LocalClients;
  readonly tableName: string;
  readonly streamArn: string;
  readonly topicArns: Record<string, string>;
  readonly deadLetterQueueUrl: string;
  readonly onFailureQueueUrl: string;
  /** Commits events through the write helper into this stack's table. */
  readonly write: EventWriter;
  /** Bodies of every message in a queue, in the order they were enqueued. */
  bodies(queueName: string): string[];
  envelopes(queueName: string): OutboxEnvelope[];
  /** The relay handler wired to this stack, with an optional wrapper around the SNS client and relay settings of its own. */
  handler(options?: { sns?: PublishBatchClient; maxPublishAttempts?: number; publishConcurrency?: number }): RelayHandler;
  stop(): Promise<void>;
}

export async function startRelayStack(config: OutboxConfig): Promise<RelayTestStack> {
  // EMF lines on stdout for every invocation would bury the test output.
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  const server = await startFauxqs({ port: 0, logger: false });
  const topicArns: Record<string, string> = {};
  for (const topic of config.topics) {
    const attributes: Record<string, string> = topic.fifo ? { FifoTopic: 'true' } : {};
    topicArns[topic.name] = server.createTopic(topic.name, { attributes }).topicArn;
    server.createQueue(subscriberQueue(topic.name), { attributes: topic.fifo ? { FifoQueue: 'true' } : {} });
    server.subscribe({ topic: topic.name, queue: subscriberQueue(topic.name), attributes: { RawMessageDelivery: 'true' } });
  }
  const { queueUrl: deadLetterQueueUrl } = server.createQueue(RELAY_DLQ);
  const { queueUrl: onFailureQueueUrl } = server.createQueue(ON_FAILURE_QUEUE);
  const clients = testClients(server.address);
  const { tableName, streamArn } = await freshTable(clients, 'relay');
  const bodies = (queueName: string): string[] => {
    const queue = server.inspectQueue(queueName);
    if (queue === undefined) throw new Error(`no queue ${queueName}`);
    const { ready, delayed, inflight } = queue.messages;
    return [...ready, ...delayed, ...inflight.map((m) => m.message)].map((m) => m.body);
  };
  return {
    server,
    clients,
    tableName,
    streamArn,
    topicArns,
    deadLetterQueueUrl,
    onFailureQueueUrl,
    write: eventWriter(clients.document, tableName, config),
    bodies,
    envelopes: (queueName) => bodies(queueName).map((body) => parseEnvelope(body)),
    handler: ({ sns = clients.sns, maxPublishAttempts, publishConcurrency } = {}) =>
      createRelayHandler({
        relay: new Relay({
          config: {
            ...config,
            relay: {
              ...config.relay,
              ...(maxPublishAttempts === undefined ? {} : { maxPublishAttempts }),
              ...(publishConcurrency === undefined ? {} : { publishConcurrency }),
            },
          },
          sns,
          sqs: clients.sqs,
          topicArns,
          deadLetterQueueUrl,
          backoff: { baseDelayMs: 5, maxDelayMs: 100 },
        }),
        logger: new Logger({ serviceName: 'outbox-relay-test', logLevel: 'SILENT' }),
        metrics: new Metrics({ namespace: 'OutboxTest', serviceName: 'outbox-relay-test' }),
      }),
    async stop() {
      clients.destroy();
      await server.stop();
    },
  };
}

/** The local event source mapping running the stack's relay handler over its table's stream, started; stop it after the tests. */
export function startRelayRunner(stack: RelayTestStack, config: OutboxConfig): StreamRunner {
  const runner = new StreamRunner({
    streams: stack.clients.streams,
    streamArn: stack.streamArn,
    settings: relayEventSourceSettings(config),
    handler: stack.handler(),
    onError: (error) => console.error('stream runner error', (error as Error).name),
  });
  runner.start();
  return runner;
}
