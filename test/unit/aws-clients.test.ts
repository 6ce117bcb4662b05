import { type AddressInfo, createServer, type Socket } from 'node:net';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { PublishBatchCommand } from '@aws-sdk/client-sns';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { CLIENT_TIMEOUTS } from '../../shared/aws/client-timeouts.js';
import { snsClient, sqsClient } from '../../shared/aws/messaging-clients.js';
import { s3Client } from '../../shared/aws/s3-client.js';
import { streamsClient } from '../../shared/aws/streams-client.js';
import { leaseTableClient, leaseTableTimeouts } from '../../shared/processor/lease-table-client.js';

const logger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const hasLoggerMiddleware = (client: { middlewareStack: { identify(): string[] } }): boolean =>
  client.middlewareStack.identify().some((entry) => entry.startsWith('loggerMiddleware'));

const TOPIC = 'arn:aws:sns:us-east-1:000000000000:t';
const QUEUE = 'https://sqs.us-east-1.amazonaws.com/000000000000/q';
const publishOne = (i: number) => new PublishBatchCommand({ TopicArn: TOPIC, PublishBatchRequestEntries: [{ Id: `e${i}`, Message: 'm' }] });
const sendOne = (i: number) => new SendMessageCommand({ QueueUrl: QUEUE, MessageBody: `m${i}` });

/** A server that accepts connections and never answers, and the config of a client pointed at it. */
async function silentServer() {
  const sockets: Socket[] = [];
  const server = createServer((socket) => sockets.push(socket));
  const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
  return {
    sockets,
    config: {
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${port}`,
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
      maxAttempts: 1,
    },
    async close(): Promise<void> {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('SDK client factories', () => {
  it.each([
    ['streams', streamsClient],
    ['sns', snsClient],
    ['sqs', sqsClient],
  ] as const)('%s: without a logger, no redacted copies are built for it; with one, it gets them', (_name, create) => {
    const quiet = create({ region: 'us-east-1' });
    const logged = create({ region: 'us-east-1', logger });
    expect(hasLoggerMiddleware(quiet)).toBe(false);
    expect(hasLoggerMiddleware(logged)).toBe(true);
    quiet.destroy();
    logged.destroy();
  });

  it('sns: gives up on a connection that stays silent instead of waiting for ever', { timeout: 30_000 }, async () => {
    const silent = await silentServer();
    const client = snsClient(silent.config);
    try {
      const error = await client.send(publishOne(0)).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error?.name).toBe('TimeoutError');
      expect(error?.message).toContain(String(CLIENT_TIMEOUTS.sns.requestTimeout));
    } finally {
      client.destroy();
      await silent.close();
    }
  });

  it('s3: gives up on a connection that stays silent, after its own timeout', async () => {
    const silent = await silentServer();
    const client = s3Client({ ...silent.config, forcePathStyle: true });
    // The clock is faked once the request waits on the silent server: its 30 s pass at once, and
    // not a millisecond earlier than the timeout says.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const started = Date.now();
      const settled = client.send(new GetObjectCommand({ Bucket: 'failed-batches', Key: 'k' })).then(
        () => undefined,
        (e: Error) => e,
      );
      let error: Error | undefined;
      void settled.then((e) => {
        error = e;
      });
      await vi.waitFor(() => expect(silent.sockets.length).toBe(1), { timeout: 5_000, interval: 10 });
      await vi.advanceTimersByTimeAsync(CLIENT_TIMEOUTS.s3.requestTimeout - 1_000);
      expect(error).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1_000);
      await vi.waitFor(() => expect(error).toBeDefined(), { timeout: 5_000, interval: 10 });
      expect(error?.name).toBe('TimeoutError');
      expect(error?.message).toContain(String(CLIENT_TIMEOUTS.s3.requestTimeout));
      expect(Date.now() - started).toBeGreaterThanOrEqual(CLIENT_TIMEOUTS.s3.requestTimeout);
    } finally {
      vi.useRealTimers();
      client.destroy();
      await silent.close();
    }
  });

  it('lease table: gives up on a silent connection well within the renewal interval', { timeout: 30_000 }, async () => {
    const silent = await silentServer();
    const renewIntervalMs = 400;
    const client = leaseTableClient(renewIntervalMs, silent.config);
    try {
      const error = await client.send(new GetCommand({ TableName: 'leases', Key: { leaseKey: 's' } })).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error?.name).toBe('TimeoutError');
      expect(error?.message).toContain(String(leaseTableTimeouts(renewIntervalMs).requestTimeout));
      expect(leaseTableTimeouts(renewIntervalMs).requestTimeout).toBeLessThan(renewIntervalMs / 2);
    } finally {
      client.destroy();
      await silent.close();
    }
  });

  // publishConcurrency's upper bound: the relay may have this many requests in flight on one client.
  const inFlight = 64;

  it.each([
    ['sns', (config: object) => snsClient(config), publishOne],
    ['sqs', (config: object) => sqsClient(config), sendOne],
  ] as const)(
    `%s: sends ${inFlight} requests at once, none queued for a socket (the SDK's pool holds 50)`,
    async (_name, create, command) => {
      const silent = await silentServer();
      const client = create(silent.config) as { send(command: unknown): Promise<unknown>; destroy(): void };
      try {
        const settled = Promise.allSettled(Array.from({ length: inFlight }, (_, i) => client.send(command(i))));
        // A request queued for a socket would spend its wait out of its timeouts: each one here gets a connection of its own.
        await vi.waitFor(() => expect(silent.sockets.length).toBe(inFlight), { timeout: 2_500, interval: 20 });
        for (const socket of silent.sockets) socket.destroy();
        expect((await settled).every((outcome) => outcome.status === 'rejected')).toBe(true);
      } finally {
        client.destroy();
        await silent.close();
      }
    },
  );

  it('keeps the caller’s settings', async () => {
    const client = streamsClient({ region: 'eu-west-3', endpoint: 'http://127.0.0.1:9' });
    expect(await client.config.region()).toBe('eu-west-3');
    client.destroy();
  });
});
