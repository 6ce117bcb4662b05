import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defineConfig, serializeConfig } from '../../shared/config.js';
import { ConfigFileError, loadConfigFile } from '../../shared/config-file.js';

const config = defineConfig({ source: 'urn:test:cli', topics: [{ name: 'payments' }], routes: { payment: 'payments' } });

/** What a refusal of a path that names no file allows. */
const existingFile = `allowed: the path of an existing file, absolute or relative to the working directory: a .json file holding the outbox config as JSON (as $OUTBOX_CONFIG holds it), or a module exporting \`config\` (.js, .mjs; .ts, .mts under a TypeScript loader such as tsx)`;

const dir = mkdtempSync(join(tmpdir(), 'config-file-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

/** The message of what `promise` was refused with, which must be a ConfigFileError naming the file as given. */
async function refusal(promise: Promise<unknown>, given?: string): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigFileError);
  const refused = error as ConfigFileError;
  expect(refused.code).toBe('INVALID_CONFIG_FILE');
  if (given !== undefined) expect(refused.file).toBe(given);
  expect(refused.message).toBe(`Invalid config file: ${refused.detail}`);
  expect(refused.detail.startsWith(JSON.stringify(refused.file))).toBe(true);
  return refused.message;
}

describe('loadConfigFile', () => {
  it('reads the config as JSON, as the relay holds it, and as a module exporting config', async () => {
    expect(await loadConfigFile(file('relay.json', serializeConfig(config)))).toEqual(config);
    expect(await loadConfigFile(file('input.json', '{"source":"urn:a","topics":[{"name":"t"}],"routes":{"a":"t"}}'))).toMatchObject({
      routes: { a: 't' },
      relay: { batchSize: 100 },
    });
    expect(await loadConfigFile(file('outbox.config.mjs', `export const config = ${serializeConfig(config)};`))).toEqual(config);
    expect(await loadConfigFile('examples/orders/outbox.config.ts')).toMatchObject({
      routes: { order: 'orders.fifo', payment: 'payments' },
    });
  });

  it('rejects a file that does not exist, naming it and where it was looked for', async () => {
    expect(await refusal(loadConfigFile('no-such-config.json', dir), 'no-such-config.json')).toBe(
      `Invalid config file: "no-such-config.json" does not exist (looked for ${join(dir, 'no-such-config.json')}); ${existingFile}`,
    );
  });

  it('rejects a .json file that is not JSON', async () => {
    const path = file('broken.json', '{"source":');
    expect(await refusal(loadConfigFile(path))).toMatch(
      new RegExp(`^Invalid config file: "${path}" is not JSON \\(.+\\); allowed: the outbox config as JSON, as serializeConfig writes it$`),
    );
  });

  it('rejects a module without a config export, naming what it exports', async () => {
    const path = file('default.mjs', `export default ${serializeConfig(config)}; export const routes = {};`);
    expect(await refusal(loadConfigFile(path))).toBe(
      `Invalid config file: "${path}" has no \`config\` export (it exports default, routes); allowed: a module with \`export const config = defineConfig({ … })\``,
    );
  });

  it('rejects an invalid config with the field the config check names', async () => {
    const json = file('unrouted.json', '{"source":"urn:a","topics":[{"name":"payments"}],"routes":{"payment":"nowhere"}}');
    expect(await refusal(loadConfigFile(json))).toBe(
      `Invalid config file: "${json}" holds an invalid outbox config (at routes.payment: routes to unknown topic "nowhere"; allowed: "payments")`,
    );
    const module = file('unknown-key.mjs', 'export const config = { source: "urn:a", topics: [{ name: "t" }], routes: {}, route: {} };');
    expect(await refusal(loadConfigFile(module))).toMatch(/holds an invalid outbox config \(at config\.route: unknown key "route"/);
  });

  it('rejects a module that fails to load, and a file of another kind, saying what is allowed', async () => {
    const broken = file('broken.mjs', 'export const config = ;');
    expect(await refusal(loadConfigFile(broken))).toMatch(new RegExp(`^Invalid config file: "${broken}" could not be loaded: `));
    const yaml = file('outbox.yaml', 'source: urn:a');
    expect(await refusal(loadConfigFile(yaml))).toBe(
      `Invalid config file: "${yaml}" has the extension ".yaml"; allowed: a .json file holding the outbox config as JSON (as $OUTBOX_CONFIG holds it), or a module exporting \`config\` (.js, .mjs; .ts, .mts under a TypeScript loader such as tsx)`,
    );
    const folder = join(dir, 'folder.json');
    mkdirSync(folder);
    expect(await refusal(loadConfigFile(folder))).toBe(`Invalid config file: "${folder}" is not a file; ${existingFile}`);
  });
});
