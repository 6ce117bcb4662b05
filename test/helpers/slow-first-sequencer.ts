import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The test files that take 5 s or more, slowest first, as CI measured them (a package built and
 * installed, CLIs spawned one after another, whole local stacks, stacks synthesised, a client left
 * to time out). Without a results cache (a fresh clone) vitest orders files by size, which says
 * little about their time: a small file that takes 16 s could start last and keep one worker busy
 * long after the other is done. Slowest first, the two workers end close together. The CDK files
 * (the infra project) share their worker's modules and take a second or two each once aws-cdk-lib is
 * loaded: they stay together, after these, so a worker loads it once rather than between other files.
 */
const SLOW_FIRST = [
  'test/package/adopter.test.ts',
  'test/integration/redrive-cli.test.ts',
  'test/e2e/npm-start-signals.test.ts',
  'test/integration/archive-replay-end-to-end.test.ts',
  'test/integration/redrive-dlq.test.ts',
  'test/e2e/local-stack.test.ts',
  'test/integration/archive-replay.test.ts',
  'test/infra/cdk-cli.test.ts',
  'test/e2e/local-stack-persist.test.ts',
  'test/unit/testing-declarations.test.ts',
  'test/integration/dlq-triage.test.ts',
  'test/integration/archive-end-to-end.test.ts',
  'test/e2e/local-stack-low-latency.test.ts',
  'test/integration/catalog-cli.test.ts',
  'test/e2e/npm-start-refusals.test.ts',
  'test/integration/replay-cli.test.ts',
  'test/integration/tracing-end-to-end.test.ts',
  'test/integration/testing-entry.test.ts',
  'test/integration/processor-failover.test.ts',
  'test/e2e/local-stack-loopback.test.ts',
  'test/integration/relay-end-to-end.test.ts',
  'test/integration/stream-runner.test.ts',
  'test/e2e/local-stack-archive.test.ts',
  'test/e2e/local-stack-relay-timeout.test.ts',
  'test/integration/redrive-on-failure-holds.test.ts',
  'test/integration/relay-faults.test.ts',
  'test/integration/redrive-on-failure.test.ts',
  'test/integration/dlq-cli.test.ts',
  'test/integration/local-sqs.test.ts',
  'test/integration/dynamodb-local-start.test.ts',
  'test/unit/aws-clients.test.ts',
  'test/integration/redrive-runs.test.ts',
];

const rank = (file: TestSpecification): number => {
  const index = SLOW_FIRST.findIndex((path) => file.moduleId.endsWith(path));
  return index === -1 ? SLOW_FIRST.length : index;
};

/** Vitest's order (failed first, then longest by the cache, else largest), with the known slow files ahead of it. */
export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // Array.prototype.sort is stable: the others keep vitest's order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
