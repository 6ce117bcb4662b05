/** The local stack's ports: whether one is free on 127.0.0.1, a free one, and what to say of one that is not. */

import { createServer } from 'node:net';
import { portAllowed } from '../../tcp-port.js';
import { LocalStackError } from '../errors.js';

/** What a port of the local stack may be, as a refusal says it after "allowed:": its option's and its flag's. */
export const PORT_ALLOWED = portAllowed(0);

/** Why a port cannot be bound on 127.0.0.1 right now (the error's code), or `undefined` when it can. */
export function portBindError(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'UNKNOWN'));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(undefined)));
  });
}

/** What to tell the user when `port`, wanted for `purpose`, could not be bound with error `code`. */
export function portRefusal(code: string, port: number, purpose: string): string {
  if (code === 'EADDRINUSE') return `port ${port} for ${purpose} is already in use; choose another port or stop what holds it`;
  if (code === 'EACCES') return `port ${port} for ${purpose} is not allowed for this user; choose a port above 1023`;
  return `port ${port} for ${purpose} cannot be bound (${code}); choose another port`;
}

/** A port that was free a moment ago. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Refuses a port `purpose` could not bind, with a `LocalStackError` `PORT_IN_USE` naming it; 0 (a free port) passes. */
export async function checkPortFree(port: number, purpose: string): Promise<void> {
  const bindError = port === 0 ? undefined : await portBindError(port);
  if (bindError !== undefined) throw new LocalStackError('PORT_IN_USE', portRefusal(bindError, port, purpose));
}
