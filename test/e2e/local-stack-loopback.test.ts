import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../examples/orders/outbox.config.js';
import { type LocalStack, startLocalStack } from '../../shared/local/stack/local-stack.js';

/**
 * The addresses of this machine other than loopback, where another host could reach a port.
 * IPv6 link-local addresses are left out: they need an interface scope to be dialled.
 */
function otherAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .filter((entry) => !entry.internal && !(entry.family === 'IPv6' && entry.address.toLowerCase().startsWith('fe80:')))
    .map((entry) => entry.address);
}

/** Whether a TCP connection to `host:port` is accepted: `connected`, or the error's code (`ECONNREFUSED`, or `TIMEOUT` after 3 s). */
function dial(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(3000, () => {
      socket.destroy();
      resolve('TIMEOUT');
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

let stack: LocalStack;

beforeAll(async () => {
  stack = await startLocalStack({ config, subscribers: [] });
});
afterAll(async () => {
  await stack?.stop();
});

describe('npm start stack, network exposure', () => {
  it('listens for the SNS/SQS emulator, which has no authentication, on the loopback interface only', async (context) => {
    const addresses = otherAddresses();
    context.skip(addresses.length === 0, 'this machine has no address other than loopback to try the emulator on');
    const port = Number(new URL(stack.emulatorEndpoint).port);
    expect(stack.emulatorEndpoint).toBe(`http://127.0.0.1:${port}`);
    // The port is open where it should be: the probe below can tell a listener from none.
    expect(await dial('127.0.0.1', port)).toBe('connected');
    const outcomes = await Promise.all(addresses.map(async (address) => [address, await dial(address, port)] as const));
    for (const [address, outcome] of outcomes) expect(outcome, `the emulator's port ${port} on ${address}`).not.toBe('connected');
  });
});
