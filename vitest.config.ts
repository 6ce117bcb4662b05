import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defaultExclude, defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/helpers/slow-first-sequencer.js';

// The example app imports the package by its name; inside this repository the names resolve to
// the sources, as tsconfig.json's `paths` say (tsc, tsx and esbuild read them there).
const { paths } = JSON.parse(readFileSync(new URL('./tsconfig.json', import.meta.url), 'utf8')).compilerOptions as {
  paths: Record<string, [string]>;
};
const alias = Object.entries(paths).map(([name, [target]]) => ({
  find: new RegExp(`^${name.replace('/', '\\/')}$`),
  replacement: fileURLToPath(new URL(target, import.meta.url)),
}));

// What every test file gets, whichever project runs it.
const shared = {
  resolve: { alias },
  test: {
    testTimeout: 60_000,
    // Hooks start local parts or synthesise (and bundle) whole CDK stacks: slow on 2 loaded cores.
    hookTimeout: 180_000,
    // Integration tests share one DynamoDB Local (separate tables) on a 2-core machine.
    pool: 'forks',
    // The SDK's notice that future releases need Node 22 is noise in test output.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
} as const;

const INFRA = 'test/infra/**/*.test.ts';
const UNIT = 'test/unit/**/*.test.ts';
// Puts back, when a test file ends, the environment it changed (for the projects that share a process).
const RESTORE_ENV = 'test/helpers/restore-env.ts';

// A unit test that replaces a module (`vi.mock`) needs the module loaded afresh: it runs isolated.
const REPLACES_MODULES = /\bvi\.(mock|doMock)\(/;
const unitWithMocks = readdirSync(new URL('./test/unit/', import.meta.url), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => `test/unit/${file}`)
  .filter((file) => REPLACES_MODULES.test(readFileSync(new URL(file, import.meta.url), 'utf8')));

export default defineConfig({
  ...shared,
  test: {
    ...shared.test,
    // Once for the whole run (the projects below name none of their own): one DynamoDB Local, the built assets.
    globalSetup: ['test/helpers/global-setup.ts'],
    maxWorkers: 2,
    // A third worker measured no faster (CPU-bound on 2 cores); the long files go first instead.
    sequence: { sequencer: SlowFirstSequencer },
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    projects: [
      {
        ...shared,
        // The integration, end-to-end and package tests share their worker's modules too (their
        // environment put back after each file): each file loading the SDK, the library and the
        // emulator afresh cost some 1.2 s, ninety times.
        test: {
          ...shared.test,
          name: 'tests',
          include: ['test/**/*.test.ts'],
          exclude: [...defaultExclude, INFRA, UNIT],
          isolate: false,
          setupFiles: [RESTORE_ENV],
        },
      },
      {
        ...shared,
        test: { ...shared.test, name: 'unit-isolated', include: unitWithMocks },
      },
      {
        ...shared,
        // The unit tests share their worker's modules, as the CDK tests do: loading the SDK and the
        // library again for each of some 120 small files took more than half their time. A unit test
        // that changes the process (env, timers, spies, listeners) must undo it, and one that
        // replaces a module runs in the isolated project above.
        test: {
          ...shared.test,
          name: 'unit',
          include: [UNIT],
          exclude: [...defaultExclude, ...unitWithMocks],
          isolate: false,
          setupFiles: [RESTORE_ENV],
        },
      },
      {
        ...shared,
        // The CDK tests share their worker's modules instead of loading aws-cdk-lib and the
        // constructs again for each file, and CDK's in-process asset cache stages a handler another
        // file already bundled (same sources, same options) instead of running esbuild again: some
        // two thirds of their time. What a file sets in process.env is put back as elsewhere; a test
        // here that changes the process otherwise must undo it.
        test: { ...shared.test, name: 'infra', include: [INFRA], isolate: false, setupFiles: [RESTORE_ENV] },
      },
    ],
  },
});
