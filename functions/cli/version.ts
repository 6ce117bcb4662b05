import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package whose version `dynamodb-outbox --version` prints. */
const PACKAGE_NAME = 'dynamodb-outbox';

/** A package.json's name and version; `undefined` for one that is no JSON object (another's, skipped). */
function readManifest(file: string): { name?: unknown; version?: unknown } | undefined {
  try {
    const manifest: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof manifest === 'object' && manifest !== null ? manifest : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The version of the package this module is part of: the nearest `package.json` above `from` that
 * names the package (the installed package's own, above `dist/functions/cli/`; the repository's,
 * above `functions/cli/`), or `undefined` when none does.
 *
 * @example
 * ```ts
 * process.stdout.write(`${packageVersion() ?? 'unknown'}\n`);
 * ```
 */
export function packageVersion(from: string = import.meta.url): string | undefined {
  let dir = dirname(fileURLToPath(from));
  for (;;) {
    const file = join(dir, 'package.json');
    const manifest = existsSync(file) ? readManifest(file) : undefined;
    if (manifest?.name === PACKAGE_NAME && typeof manifest.version === 'string') return manifest.version;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}
