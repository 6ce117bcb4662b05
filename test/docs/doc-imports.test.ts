import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type DocImport, docImports } from './doc-imports.js';
import { entryExports, ROOT } from './entry-exports.js';

/** README.md and every page of docs/: what a user reads before importing the package. */
const PAGES = [
  'README.md',
  ...readdirSync(resolve(ROOT, 'docs'), { encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

const EXPORTS = entryExports();

/** The imports of `page` (its text) that the package does not answer: an entry point not in `exports`, or a name its index does not export. */
function missing(page: string, text: string): string[] {
  const wrong = (i: DocImport): boolean => {
    const names = EXPORTS.get(i.specifier);
    return names === undefined || (i.name !== undefined && !names.has(i.name));
  };
  return docImports(text)
    .filter(wrong)
    .map((i) => `${page}:${i.line}: ${i.name ?? '*'} from '${i.specifier}'`);
}

describe('what the docs import from the package', () => {
  it.each(PAGES)('%s imports only what its entry points export', (page) => {
    expect(missing(page, readFileSync(resolve(ROOT, page), 'utf8'))).toEqual([]);
  });

  it('reads every entry point of package.json, type-only and `export type *` names included', () => {
    expect([...EXPORTS.keys()].sort()).toEqual(
      ['', '/catalog', '/cdk', '/consumer', '/processor', '/redrive', '/relay', '/testing'].map((s) => `dynamodb-outbox${s}`),
    );
    expect(EXPORTS.get('dynamodb-outbox')?.has('Outbox')).toBe(true); // through `export * from './write/index.js'`
    expect(EXPORTS.get('dynamodb-outbox/testing')?.has('OutboxTestStack')).toBe(true); // `type OutboxTestStack` in a list
    expect(EXPORTS.get('dynamodb-outbox/consumer')?.has('TransactionHandler')).toBe(true); // `export type * from './types.js'`
    expect(EXPORTS.get('dynamodb-outbox/relay')?.has('Outbox')).toBe(false);
  });

  it('finds the docs import statements it checks (README.md alone has more than ten)', () => {
    const readme = docImports(readFileSync(resolve(ROOT, 'README.md'), 'utf8'));
    expect(readme.length).toBeGreaterThan(10);
    expect(readme).toContainEqual({ line: expect.any(Number), specifier: 'dynamodb-outbox/cdk', name: 'Outbox' });
  });

  it('reports a name an entry point does not export, an entry point that is not one, and a wrong prose mention', () => {
    const page = [
      'Intro naming `startLocalStack()` from `dynamodb-outbox/testing`, and',
      '`STOPPING_CHECKPOINT_RETRIES` in `shard-checkpoints.ts`, not exported by `dynamodb-outbox/processor`;',
      '`EventSchemaError` (exported from `dynamodb-outbox/catalog`) and `LeaseTable` (exported by `dynamodb-outbox/processor`).',
      '',
      '```ts',
      'import {',
      '  createConsumer,',
      '  type NoSuchHandler,',
      '  eventHandler as handle,',
      "} from 'dynamodb-outbox/consumer';",
      "import type { OutboxTestStack } from 'dynamodb-outbox/testing';",
      "import * as archive from 'dynamodb-outbox/archive';",
      "export { ARCHIVER_METRICS } from 'dynamodb-outbox/relay';",
      "type Stack = import('dynamodb-outbox/testing').LocalStack;",
      '```',
      '',
      '```sh',
      'node -e "import(\'dynamodb-outbox/nowhere\')"',
      '```',
    ].join('\n');
    expect(missing('page.md', page)).toEqual([
      "page.md:1: startLocalStack from 'dynamodb-outbox/testing'",
      "page.md:3: LeaseTable from 'dynamodb-outbox/processor'",
      "page.md:8: NoSuchHandler from 'dynamodb-outbox/consumer'",
      "page.md:12: * from 'dynamodb-outbox/archive'",
      "page.md:13: ARCHIVER_METRICS from 'dynamodb-outbox/relay'",
      "page.md:14: LocalStack from 'dynamodb-outbox/testing'",
    ]);
  });
});
