import { type AddressInfo, createServer, type Socket } from 'node:net';
import { PublishBatchCommand } from '@aws-sdk/client-sns';
import { describe, expect, it } from 'vitest';
import { CLIENT_TIMEOUTS, snsClient, sqsClient, streamsClient } from '../../shared/aws/clients.js';

const logger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const hasLoggerMiddleware = (client: { middlewareStack: { identify(): string[] } }): boolean =>
  client.middlewareStack.identify().some((entry) => entry.startsWith('loggerMiddleware'));

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
    const sockets: Socket[] = [];
    // Accepts connections and never answers.
    const silent = createServer((socket) => sockets.push(socket));
    const port = await new Promise<number>((resolve) =>
      silent.listen(0, '127.0.0.1', () => resolve((silent.address() as AddressInfo).port)),
    );
    const client = snsClient({
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${port}`,
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
      maxAttempts: 1,
    });
    try {
      const error = await client
        .send(
          new PublishBatchCommand({
            TopicArn: 'arn:aws:sns:us-east-1:000000000000:t',
            PublishBatchRequestEntries: [{ Id: 'e0', Message: 'm' }],
          }),
        )
        .then(
          () => undefined,
          (e: Error) => e,
        );
      expect(error?.name).toBe('TimeoutError');
      expect(error?.message).toContain(String(CLIENT_TIMEOUTS.sns.requestTimeout));
    } finally {
      client.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('keeps the caller’s settings', async () => {
    const client = streamsClient({ region: 'eu-west-3', endpoint: 'http://127.0.0.1:9' });
    expect(await client.config.region()).toBe('eu-west-3');
    client.destroy();
  });
});
