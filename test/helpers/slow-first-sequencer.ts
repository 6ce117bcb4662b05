import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The test files that take longest (a package built and installed, CLIs spawned one after
 * another, a client left to time out, whole local stacks), slowest first, as CI measured them.
 * Without a results cache (a fresh clone) vitest orders files by size, so one of these could
 * start last and keep one worker busy long after the other is done.
 */
const SLOW_FIRST = [
  'test/package/adopter.test.ts',
  'test/integration/redrive-cli.test.ts',
  'test/unit/aws-clients.test.ts',
  'test/integration/archive-replay-end-to-end.test.ts',
  'test/e2e/npm-start-signals.test.ts',
  'test/e2e/local-stack.test.ts',
  'test/infra/cdk-cli.test.ts',
  'test/integration/redrive-dlq.test.ts',
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
