import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The modules behind the package's library entry points (package.json `exports`, the CDK constructs aside). */
const LIBRARY_ENTRIES = [
  'shared/index.ts',
  'shared/consumer/index.ts',
  'shared/relay/index.ts',
  'shared/processor/index.ts',
  'shared/redrive/index.ts',
  'shared/catalog/index.ts',
  'shared/local/index.ts',
];

/** A command line's module: `cli.ts`, `cli-….ts`, or one under a `cli/` folder. */
const isCommandLineModule = (path: string): boolean => /(?:^|\/)cli(?:\.ts$|-|\/)/.test(path);

/** Every repository file `entry` loads through its static value imports and re-exports (`import type` loads nothing), each with the file that imports it. */
function loadedBy(entry: string): Map<string, string> {
  const importer = new Map<string, string>([[entry, '']]);
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    const source = readFileSync(resolve(root, file), 'utf8');
    for (const [, specifier] of source.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?\bfrom\s+'(\.[^']+)'/gms)) {
      const target = relative(root, resolve(root, dirname(file), (specifier as string).replace(/\.js$/, '.ts')));
      if (!importer.has(target) && existsSync(resolve(root, target))) {
        importer.set(target, file);
        pending.push(target);
      }
    }
  }
  return importer;
}

describe('the library loads no command-line module', () => {
  it('finds the imports it follows: the redrive entry loads its option checks and the SQS queue URL check', () => {
    const loaded = loadedBy('shared/redrive/index.ts');
    expect(loaded.has('shared/redrive/option-checks.ts')).toBe(true);
    expect(loaded.has('shared/aws/sqs-queue-url.ts')).toBe(true);
    expect(isCommandLineModule('shared/cli-tokens.ts') && isCommandLineModule('shared/catalog/cli.ts')).toBe(true);
  });

  it.each(LIBRARY_ENTRIES)('%s', (entry) => {
    const commandLine = [...loadedBy(entry)].filter(([file]) => isCommandLineModule(file)).map(([file, by]) => `${file} <- ${by}`);
    expect(commandLine).toEqual([]);
  });
});
