import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import specs from '@asyncapi/specs';
import { Ajv } from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

/**
 * `dynamodb-outbox catalog` and `catalog check` as a CI job runs them: the command line in a child
 * process, on the example app's config (a TypeScript module, under tsx), files on disk.
 */

const dir = mkdtempSync(join(tmpdir(), 'catalog-cli-'));
const CONFIG = 'examples/orders/outbox.config.ts';
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (...args: string[]) => runCli(args, { OUTBOX_CONFIG: '' });

describe('dynamodb-outbox catalog', { timeout: 120_000 }, () => {
  const published = join(dir, 'asyncapi.json');

  it('writes a valid AsyncAPI 3.0 document of the example app, with the JSON Schema of each declared type', async () => {
    const { code, stderr } = await cli('catalog', '--config', CONFIG, '--out', published);
    expect(code, stderr).toBe(0);
    const document = JSON.parse(readFileSync(published, 'utf8'));
    const ajv = new Ajv({ strict: false, meta: false, validateSchema: false });
    expect(ajv.validate(specs.schemas['3.0.0'], document), JSON.stringify(ajv.errors?.slice(0, 3))).toBe(true);
    expect(Object.keys(document.components.messages)).toEqual(['order.placed.v1', 'order.cancelled.v1', 'payment.captured.v1']);
    expect(document.components.schemas['order.placed.v1']).toMatchObject({ required: ['total', 'currency'] });
  });

  it('check passes (status 0) against the document it just wrote', async () => {
    const { code, stdout } = await cli('catalog', 'check', '--published', published, '--config', CONFIG);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Compatible with .*: 3 published versions kept/);
  });

  it('check fails (status 1) when a published property is gone from the current schema, naming its JSON pointer', async () => {
    const document = JSON.parse(readFileSync(published, 'utf8'));
    document.components.schemas['payment.captured.v1'].properties.method = { type: 'string' };
    const older = join(dir, 'older.json');
    writeFileSync(older, JSON.stringify(document));
    const { code, stdout } = await cli('catalog', 'check', '--published', older, '--config', CONFIG);
    expect(code).toBe(1);
    expect(stdout).toContain('payment.captured v1  property-removed  /components/schemas/payment.captured.v1/properties/method');
  });

  it('fails with status 2 on a usage error: check without --published, or a published file that is no catalog', async () => {
    const missing = await cli('catalog', 'check', '--config', CONFIG);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/Invalid catalog option --published: is required/);
    const notCatalog = join(dir, 'openapi.json');
    writeFileSync(notCatalog, '{"openapi":"3.1.0"}');
    const wrong = await cli('catalog', 'check', '--published', notCatalog, '--config', CONFIG);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/Invalid published catalog at \/asyncapi/);
  });
});
