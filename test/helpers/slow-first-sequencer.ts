import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The test files that take 5 s or more, slowest first, as CI measured them (a package built and
 * installed, CLIs spawned one after another, whole local stacks, stacks synthesised, a client left
 * to time out). Without a results cache (a fresh clone) vitest orders files by size, which says
 * little about their time: a small file that takes 16 s could start last and keep one worker busy
 * long after the other is done. Slowest first, the two workers end close together.
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
  'test/infra/low-latency-processor.test.ts',
  'test/infra/outbox-topic-policies.test.ts',
  'test/infra/processor-failed-batches.test.ts',
  'test/infra/outbox-stack.test.ts',
  'test/integration/archive-end-to-end.test.ts',
  'test/infra/outbox-subscriber-concurrency.test.ts',
  'test/e2e/local-stack-low-latency.test.ts',
  'test/integration/catalog-cli.test.ts',
  'test/e2e/npm-start-refusals.test.ts',
  'test/infra/outbox-archive-options.test.ts',
  'test/infra/outbox-subscriber.test.ts',
  'test/infra/bundles.test.ts',
  'test/infra/props-validation.test.ts',
  'test/integration/replay-cli.test.ts',
  'test/integration/tracing-end-to-end.test.ts',
  'test/integration/testing-entry.test.ts',
  'test/infra/lag-by-event-type.test.ts',
  'test/infra/relay-lag-alarms.test.ts',
  'test/integration/processor-failover.test.ts',
  'test/e2e/local-stack-loopback.test.ts',
  'test/integration/relay-end-to-end.test.ts',
  'test/infra/outbox-subscriber-limits.test.ts',
  'test/integration/stream-runner.test.ts',
  'test/infra/alarm-status-widgets.test.ts',
  'test/infra/outbox-stack-subscribers.test.ts',
  'test/e2e/local-stack-archive.test.ts',
  'test/infra/outbox-variants.test.ts',
  'test/e2e/local-stack-relay-timeout.test.ts',
  'test/integration/redrive-on-failure-holds.test.ts',
  'test/integration/relay-faults.test.ts',
  'test/infra/relay-function-limits.test.ts',
  'test/infra/outbox-archive.test.ts',
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
