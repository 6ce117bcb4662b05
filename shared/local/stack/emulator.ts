import type { AddressInfo } from 'node:net';
import { LocalStackError } from '../errors.js';
import { loadPeer, type PeerImporter } from './peers.js';
import { checkPortFree, portRefusal } from './ports.js';

/**
 * The in-process SNS/SQS/S3 emulator (fauxqs) as the local stack runs it: listening on the
 * loopback interface only, as it has no authentication. Its queues, topics and buckets are made
 * through the AWS APIs at `address`, as a deployment's are.
 */
export interface Emulator {
  /** Its endpoint, `http://127.0.0.1:<port>`, for SNS, SQS and S3 clients alike. */
  readonly address: string;
  readonly port: number;
  stop(): Promise<void>;
}

/** The only interface the emulator listens on: anyone who reaches it may read and send every message. */
export const EMULATOR_HOST = '127.0.0.1';

export const EMULATOR = 'the SNS/SQS emulator';

/** Fails with `PORT_IN_USE` naming the port when the emulator could not bind it; 0 (a free port) passes. */
export const checkEmulatorPort = (port: number): Promise<void> => checkPortFree(port, EMULATOR);

/**
 * Starts fauxqs in this process on {@link EMULATOR_HOST}, loaded only now: a missing package is
 * a `LocalStackError` `MISSING_PEER_DEPENDENCY`, a taken port `PORT_IN_USE`. fauxqs's own
 * `startFauxqs` listens on every interface (`0.0.0.0`); its app builder is listened here instead.
 *
 * @example
 * ```ts
 * const emulator = await startEmulator(0);
 * try { ... emulator.address ... } finally { await emulator.stop(); }
 * ```
 */
export async function startEmulator(port: number, importer?: PeerImporter): Promise<Emulator> {
  const { buildApp } = (await loadPeer('fauxqs', importer)) as typeof import('fauxqs');
  const app = buildApp({ logger: false });
  try {
    await app.listen({ port, host: EMULATOR_HOST });
  } catch (error) {
    await app.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES')
      throw new LocalStackError('PORT_IN_USE', portRefusal(code, port, EMULATOR), { cause: error });
    throw error;
  }
  const bound = (app.server.address() as AddressInfo).port;
  return { address: `http://${EMULATOR_HOST}:${bound}`, port: bound, stop: () => app.close() };
}
