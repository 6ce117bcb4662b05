import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    // Hooks start local parts or synthesise (and bundle) whole CDK stacks: slow on 2 loaded cores.
    hookTimeout: 180_000,
    // Integration tests share one DynamoDB Local (separate tables) on a 2-core machine.
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    // The SDK's notice that future releases need Node 22 is noise in test output.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
