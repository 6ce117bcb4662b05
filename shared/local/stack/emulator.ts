import { LocalStackError } from '../errors.js';
import { portBindError, portRefusal } from './dynamodb-local.js';
import { loadPeer, type PeerImporter } from './peers.js';

/** A queue as the emulator creates it. */
export interface EmulatorQueue {
  readonly queueName: string;
  readonly queueUrl: string;
  readonly queueArn: string;
}

type Attributes = { readonly attributes?: Record<string, string> };

/**
 * What the local stack uses of the in-process SNS/SQS/S3 emulator (fauxqs), in its own words,
 * so no declaration of this package names the optional peer's types.
 */
export interface Emulator {
  /** Its endpoint, for SNS, SQS and S3 clients alike. */
  readonly address: string;
  createTopic(name: string, options?: Attributes): { readonly topicArn: string };
  createQueue(name: string, options?: Attributes): EmulatorQueue;
  createBucket(name: string): unknown;
  subscribe(options: { readonly topic: string; readonly queue: string } & Attributes): void;
  /** The queue's messages without touching them; `undefined` for a queue that does not exist. */
  inspectQueue(name: string):
    | {
        readonly messages: {
          readonly ready: readonly unknown[];
          readonly delayed: readonly unknown[];
          readonly inflight: readonly unknown[];
        };
      }
    | undefined;
  stop(): Promise<void>;
}

export const EMULATOR = 'the SNS/SQS emulator';

/** Fails with `PORT_IN_USE` naming the port when the emulator could not bind it; 0 (a free port) passes. */
export async function checkEmulatorPort(port: number): Promise<void> {
  const bindError = port === 0 ? undefined : await portBindError(port);
  if (bindError !== undefined) throw new LocalStackError('PORT_IN_USE', portRefusal(bindError, port, EMULATOR));
}

/**
 * Starts fauxqs in this process, loaded only now: a missing package is a `LocalStackError`
 * `MISSING_PEER_DEPENDENCY`, a taken port `PORT_IN_USE`.
 *
 * @example
 * ```ts
 * const emulator = await startEmulator(0);
 * try { ... emulator.address ... } finally { await emulator.stop(); }
 * ```
 */
export async function startEmulator(port: number, importer?: PeerImporter): Promise<Emulator> {
  const { startFauxqs } = (await loadPeer('fauxqs', importer)) as typeof import('fauxqs');
  try {
    return await startFauxqs({ port, logger: false });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES')
      throw new LocalStackError('PORT_IN_USE', portRefusal(code, port, EMULATOR), { cause: error });
    throw error;
  }
}

/** Messages ready, delayed and in flight on a queue of the emulator; 0 for one it does not have. */
export function queueDepth(emulator: Emulator, name: string): number {
  const state = emulator.inspectQueue(name);
  return state === undefined ? 0 : state.messages.ready.length + state.messages.delayed.length + state.messages.inflight.length;
}
