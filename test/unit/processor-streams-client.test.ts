import { type AddressInfo, createServer, type Socket } from 'node:net';
import { GetRecordsCommand } from '@aws-sdk/client-dynamodb-streams';
import { describe, expect, it } from 'vitest';
import { CLIENT_TIMEOUTS } from '../../shared/aws/client-timeouts.js';
import { streamsClient } from '../../shared/aws/streams-client.js';

/** A server that accepts connections and reads requests but never answers: a black-holed connection. */
async function silentServer() {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.resume();
  });
  const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
  return {
    config: { region: 'us-east-1', endpoint: `http://127.0.0.1:${port}`, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } },
    async close(): Promise<void> {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('the stream processor’s DynamoDB Streams client (streamsClient)', () => {
  it('gives up on a GetRecords that never answers within its request timeout, instead of waiting for ever', {
    timeout: 30_000,
  }, async () => {
    const silent = await silentServer();
    const client = streamsClient({ ...silent.config, maxAttempts: 1 });
    try {
      const error = await client.send(new GetRecordsCommand({ ShardIterator: 'it', Limit: 10 })).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error?.name).toBe('TimeoutError');
      expect(error?.message).toContain(String(CLIENT_TIMEOUTS.streams.requestTimeout));
    } finally {
      client.destroy();
      await silent.close();
    }
  });
});
