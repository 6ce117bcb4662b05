import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/*
 * `npm start` runs from examples/orders/outbox.config.ts, which an adopter edits. Its entry point
 * is run here from a copy of the repository (links to the real files) whose config is edited.
 */
const repo = join(import.meta.dirname, '..', '..');
const tree = mkdtempSync(join(tmpdir(), 'outbox-npm-start-config-'));
afterAll(() => rmSync(tree, { recursive: true, force: true }));

for (const path of ['shared', 'node_modules', 'tsconfig.json', 'package.json']) symlinkSync(join(repo, path), join(tree, path));
mkdirSync(join(tree, 'examples', 'orders'), { recursive: true });
for (const path of ['api', 'consumer', 'local-app.ts'])
  symlinkSync(join(repo, 'examples', 'orders', path), join(tree, 'examples', 'orders', path));
mkdirSync(join(tree, 'functions', 'local'), { recursive: true });
copyFileSync(join(repo, 'functions', 'local', 'main.ts'), join(tree, 'functions', 'local', 'main.ts'));

const npmStart = (config: string) => {
  writeFileSync(join(tree, 'examples', 'orders', 'outbox.config.ts'), config);
  return spawnSync('node', ['--import', 'tsx', 'functions/local/main.ts', '--port', '0'], {
    cwd: tree,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
};
const exampleConfig = readFileSync(join(repo, 'examples', 'orders', 'outbox.config.ts'), 'utf8');

describe('npm start with an edited config', { timeout: 90_000 }, () => {
  // It ended in an uncaught ConfigError with its stack trace, where every other bad input ends in one line.
  it('refuses a config defineConfig refuses in one line naming the file, the field and what is allowed, with exit code 2', () => {
    expect(exampleConfig).toContain('lowLatencyAggregateTypes: [],');

    const run = npmStart(exampleConfig.replace('lowLatencyAggregateTypes: [],', "lowLatencyAggregateTypes: ['invoice'],"));

    expect(run.stderr).toBe(
      'npm start: examples/orders/outbox.config.ts is not a valid config: Invalid outbox config at lowLatencyAggregateTypes[0]: got "invoice"; allowed: a routed aggregate type ("order", "payment")\n',
    );
    expect(run.stdout).toBe('');
    expect(run.status).toBe(2);
  });

  it('says that a config file which cannot be loaded could not be, without a stack trace', () => {
    const run = npmStart('export const config = ;\n');

    expect(run.stderr).toMatch(/^npm start: examples\/orders\/outbox\.config\.ts could not be loaded: /);
    expect(run.stderr).not.toMatch(/^\s+at /m);
    expect(run.status).toBe(1);
  });
});
