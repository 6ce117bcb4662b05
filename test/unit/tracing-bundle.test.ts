import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

/*
 * A service that bundles its handler with esbuild and has no @opentelemetry/api installed: the
 * build must not fail on the write helper's optional import, and the bundle must run.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('bundling the write helper without @opentelemetry/api installed', () => {
  it('builds with esbuild and runs, taking the X-Ray header when a context manager is registered but the package is absent', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'outbox-bundle-'));
    try {
      const entry = join(dir, 'entry.ts');
      await writeFile(
        entry,
        `export { Outbox } from ${JSON.stringify(join(root, 'shared/write/index.ts'))};\n` +
          `export { ambientTraceContext } from ${JSON.stringify(join(root, 'shared/tracing/trace-context.ts'))};\n`,
      );
      const outfile = join(dir, 'handler.mjs');
      const result = await build({
        entryPoints: [entry],
        outfile,
        bundle: true,
        platform: 'node',
        format: 'esm',
        // The package made unresolvable, as in a project that does not install it.
        alias: { '@opentelemetry/api': '@opentelemetry/api-not-installed' },
        banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
        logLevel: 'silent',
      });
      expect(result.errors).toEqual([]);
      // A global registered by something else (an agent, a layer) makes the helper try the import, which fails quietly.
      const script = `
        globalThis[Symbol.for('opentelemetry.js.api.1')] = { version: '1.9.0', context: {} };
        const { ambientTraceContext } = await import(${JSON.stringify(outfile)});
        const picked = await ambientTraceContext({ _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1' });
        console.log(JSON.stringify(picked));`;
      const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
      expect(JSON.parse(stdout)).toEqual({ traceparent: '00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-01' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
