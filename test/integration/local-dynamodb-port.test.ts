import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalStackError } from '../../shared/local/errors.js';
import { startDynamoDbLocal } from '../../shared/local/stack/dynamodb-local.js';

const holders: Server[] = [];
afterEach(async () => {
  await Promise.all(holders.splice(0).map((holder) => new Promise<void>((resolve) => holder.close(() => resolve()))));
});

/** Holds a free port on `host`; `undefined` when this host has no such address. */
function hold(host: string): Promise<number | undefined> {
  const holder = createServer();
  return new Promise((resolve) => {
    holder.once('error', () => resolve(undefined));
    holder.listen(0, host, () => {
      holders.push(holder);
      resolve((holder.address() as { port: number }).port);
    });
  });
}

/** Whether this host has the IPv6 loopback address (the probe's port is let go at once). */
const hasIpv6Loopback = (await hold('::1')) !== undefined;
await Promise.all(holders.splice(0).map((holder) => new Promise<void>((resolve) => holder.close(() => resolve()))));

describe('DynamoDB Local on a taken port', () => {
  it('fails with PORT_IN_USE naming the port, as a taken SNS/SQS emulator port does, before Java starts', async () => {
    const port = (await hold('127.0.0.1'))!;

    const error = await startDynamoDbLocal({ port }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(LocalStackError);
    expect(error).toMatchObject({
      code: 'PORT_IN_USE',
      message: `port ${port} for DynamoDB Local is already in use; choose another port or stop what holds it`,
    });
  });

  // The port is free on 127.0.0.1, where it is checked, but Java binds every address: its own bind fails.
  it.runIf(hasIpv6Loopback)(
    'fails with PORT_IN_USE naming the port when only Java finds it taken (held on ::1 alone)',
    async () => {
      const port = (await hold('::1'))!;

      const error = await startDynamoDbLocal({ port, startTimeoutMs: 60_000 }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(LocalStackError);
      expect(error).toMatchObject({
        code: 'PORT_IN_USE',
        message: `port ${port} for DynamoDB Local is already in use; choose another port or stop what holds it`,
      });
    },
    90_000,
  );
});
