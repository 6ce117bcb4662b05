import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCatalogArgs, runCatalogCommand } from '../../shared/catalog/cli.js';
import { CatalogError } from '../../shared/catalog/errors.js';

function refusal(argv: readonly string[]): CatalogError {
  try {
    parseCatalogArgs(argv);
  } catch (error) {
    if (error instanceof CatalogError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('catalog command line', () => {
  it.each([
    [['catalog', 'chek'], 'Invalid catalog command: got "catalog chek"; allowed: catalog, catalog check'],
    [['catalog', 'check', 'now'], 'Invalid catalog command: got "catalog check now"; allowed: catalog, catalog check'],
    [['catalog', '--out', 'a.json', 'write'], 'Invalid catalog command: got "catalog write"; allowed: catalog, catalog check'],
  ])('%j: a wrong command is named a command, as typed, with the commands allowed', (argv, message) => {
    const error = refusal(argv);
    expect(error.message).toBe(message);
    expect(error.field).toBe('command');
    expect(error.code).toBe('INVALID_CATALOG_OPTIONS');
  });

  it('still names an option an option', () => {
    expect(refusal(['catalog', 'check']).message).toBe(
      'Invalid catalog option --published: is required by catalog check, none given; allowed: --published FILE, the document catalog last wrote',
    );
  });

  const ALLOWED = '--config FILE, --out FILE, --published FILE, --help';

  it.each([
    [['catalog', '--x'], 'option', `Unknown catalog option: got "--x"; allowed: ${ALLOWED}`],
    [['catalog', '-x'], 'option', `Unknown catalog option: got "-x"; allowed: ${ALLOWED}`],
    [['catalog', '--out'], '--out', 'Invalid catalog option --out: no value given; allowed: --out FILE'],
    [['catalog', '--help=yes'], '--help', 'Invalid catalog option --help: takes no value (no "=…" after it); allowed: --help alone'],
    [
      ['catalog', '--out', 'a.json', '--out', 'b.json'],
      '--out',
      'Invalid catalog option --out: given twice ("a.json", then "b.json"); allowed: each option once',
    ],
    [
      ['catalog', '--out', '-x'],
      '--out',
      'Invalid catalog option --out: followed by "-x", not by its value; allowed: --out FILE (a value starting with "-" as --out=-x)',
    ],
  ])('%j: a command line it cannot parse is refused in the words of redrive and replay, on the option at fault', (argv, field, message) => {
    const error = refusal(argv);
    expect(error.message).toBe(message);
    expect(error.field).toBe(field);
    expect(error.code).toBe('INVALID_CATALOG_OPTIONS');
  });

  it('takes catalog and catalog check', () => {
    expect(parseCatalogArgs(['catalog', '--out', 'a.json'])).toEqual({ kind: 'catalog', out: 'a.json' });
    expect(parseCatalogArgs(['catalog', 'check', '--published', 'a.json'])).toEqual({ kind: 'catalog-check', published: 'a.json' });
  });

  it('names a config file it cannot read as a catalog option, in the words of the config loader', async () => {
    let stderr = '';
    const io = { stdout: { write: () => true }, stderr: { write: (text: string) => (stderr += text) } };
    expect(await runCatalogCommand({ kind: 'catalog', configFile: 'no-such-outbox.config.json' }, {}, io)).toBe(2);
    expect(stderr).toMatch(
      /^Invalid catalog option --config: "no-such-outbox\.config\.json" does not exist \(looked for .*\); allowed: the path of an existing file, absolute or relative to the working directory: a \.json file .*\n$/,
    );
  });

  it('says what is allowed when the published document cannot be read or the output cannot be written', async () => {
    let stderr = '';
    const io = { stdout: { write: () => true }, stderr: { write: (text: string) => (stderr += text) } };
    const configFile = 'examples/orders/outbox.config.ts';
    const missing = join(tmpdir(), 'catalog-cli-no-such-directory', 'asyncapi.json');
    expect(await runCatalogCommand({ kind: 'catalog-check', published: missing, configFile }, {}, io)).toBe(2);
    expect(await runCatalogCommand({ kind: 'catalog', out: missing, configFile }, {}, io)).toBe(2);
    expect(stderr.split('\n')).toEqual([
      `Invalid catalog option --published: ${JSON.stringify(missing)} cannot be read (ENOENT: no such file or directory, open '${missing}'); allowed: a document dynamodb-outbox catalog wrote`,
      `Invalid catalog option --out: ${JSON.stringify(missing)} cannot be written (ENOENT: no such file or directory, open '${missing}'); allowed: a file in an existing directory the command may write to`,
      '',
    ]);
  });
});
