import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Compiles the CLI and the library it imports into `dir` file by file, as the package build lays
 * them out (`functions/cli/main.js` beside `shared/…`), and returns the path of its main module.
 * Plain node starts it in about half the time `node --import tsx` takes for the sources (tsx's
 * loader, then every module through it), and a CLI test spawns it many times. The sources are
 * written for per-file compilation (`isolatedModules`, `verbatimModuleSyntax`), so esbuild emits
 * what tsc would, without the type check the lint step already runs; packages come from the
 * repository's node_modules, as an installed package's would.
 */
export async function compileCli(dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  await build({
    entryPoints: ['shared/**/*.ts', 'functions/cli/*.ts'],
    absWorkingDir: ROOT,
    outbase: '.',
    outdir: dir,
    platform: 'node',
    format: 'esm',
    target: 'es2022',
    logLevel: 'error',
  });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return join(dir, 'functions/cli/main.js');
}
