import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { packageVersion } from '../../functions/cli/version.js';
import { parseCommandLine } from '../../shared/redrive/cli-command.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A module URL at `path` under a new directory holding the given package.json files (by folder). */
function layout(manifests: Record<string, object>, path: string): string {
  const root = mkdtempSync(join(tmpdir(), 'cli-version-'));
  dirs.push(root);
  for (const [folder, manifest] of Object.entries(manifests)) {
    mkdirSync(join(root, folder), { recursive: true });
    writeFileSync(join(root, folder, 'package.json'), JSON.stringify(manifest));
  }
  mkdirSync(join(root, path, '..'), { recursive: true });
  return pathToFileURL(join(root, path)).href;
}

describe('dynamodb-outbox --version', () => {
  it('is asked for by --version or -V without a command; with a command it is that command’s option', () => {
    expect(parseCommandLine(['--version'], {})).toEqual({ kind: 'version' });
    expect(parseCommandLine(['-V'], {})).toEqual({ kind: 'version' });
    expect(() => parseCommandLine(['dlq', '--version'], {})).toThrow(/--version/);
  });

  it("reads the installed package's version above dist/functions/cli, past a package.json of another name", () => {
    const from = layout(
      {
        'node_modules/dynamodb-outbox': { name: 'dynamodb-outbox', version: '9.8.7' },
        'node_modules/dynamodb-outbox/dist': { type: 'module' },
      },
      'node_modules/dynamodb-outbox/dist/functions/cli/main.js',
    );
    expect(packageVersion(from)).toBe('9.8.7');
  });

  it('skips a package.json above that is no JSON object, as one of another package', () => {
    const from = layout({ pkg: { name: 'dynamodb-outbox', version: '1.2.3' } }, 'pkg/dist/broken/cli/main.js');
    writeFileSync(join(fileURLToPath(new URL('..', from)), 'package.json'), '{ not json');
    expect(packageVersion(from)).toBe('1.2.3');
  });

  it("is undefined where no package.json above names the package (and the repository's own when run from its sources)", () => {
    expect(packageVersion(layout({ app: { name: 'my-service', version: '1.0.0' } }, 'app/cli/main.js'))).toBeUndefined();
    const own = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(packageVersion()).toBe(own.version);
  });
});
