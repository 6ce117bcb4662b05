import { type FauxqsServer, startFauxqs } from 'fauxqs';

/** An in-process SNS/SQS/S3 emulator on a free port, with the message spy on. */
export const startEmulator = (): Promise<FauxqsServer> => startFauxqs({ port: 0, logger: false, messageSpies: { bufferSize: 5000 } });

/** A queue with a DLQ after `maxReceiveCount` receives. */
export function queueWithDlq(
  server: FauxqsServer,
  name: string,
  maxReceiveCount = 2,
): { queueUrl: string; queueArn: string; dlqUrl: string; dlqArn: string } {
  const fifo = name.endsWith('.fifo');
  const fifoAttributes: Record<string, string> = fifo ? { FifoQueue: 'true' } : {};
  const dlqName = fifo ? `${name.slice(0, -5)}-dlq.fifo` : `${name}-dlq`;
  const dlq = server.createQueue(dlqName, { attributes: fifoAttributes });
  const queue = server.createQueue(name, {
    attributes: {
      ...fifoAttributes,
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount: String(maxReceiveCount) }),
    },
  });
  return { queueUrl: queue.queueUrl, queueArn: queue.queueArn, dlqUrl: dlq.queueUrl, dlqArn: dlq.queueArn };
}

/** Messages ready, delayed and in flight on a queue, without touching them. */
export function queueDepth(server: FauxqsServer, name: string): number {
  const state = server.inspectQueue(name);
  if (state === undefined) throw new Error(`No queue named ${name}`);
  return state.messages.ready.length + state.messages.delayed.length + state.messages.inflight.length;
}

/** Bodies on a queue (ready, delayed and in flight), without touching them. */
export function queueBodies(server: FauxqsServer, name: string): string[] {
  const state = server.inspectQueue(name);
  if (state === undefined) throw new Error(`No queue named ${name}`);
  return [...state.messages.ready, ...state.messages.delayed, ...state.messages.inflight.map((e) => e.message)].map((m) => m.body);
}
