import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { localApp } from '../../examples/orders/local-app.js';
import { config } from '../../examples/orders/outbox.config.js';
import { LocalStartError } from '../../shared/local/stack/dynamodb-local.js';
import { startLocalStack } from '../../shared/local/stack/local-stack.js';
import { startRefusal } from '../helpers/start-refusal.js';

const originalPath = process.env.PATH;
const dirs: string[] = [];
afterEach(() => {
  process.env.PATH = originalPath;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the local stack without Java', () => {
  // It bound the API's port and made the --persist folder first, and undid both once DynamoDB Local could not start.
  it('fails before anything starts: no port bound, no folder made', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'no-java-'));
    dirs.push(empty);
    process.env.PATH = empty;
    const steps: string[] = [];

    const error = await startRefusal(
      startLocalStack({ config, ...localApp(), apiPort: 0, persistDir: join(empty, 'data'), onStep: (step) => steps.push(step) }),
    );

    expect(error).toBeInstanceOf(LocalStartError);
    expect((error as Error).message).toBe(
      'Java was not found: DynamoDB Local needs it; install Java 17 or newer, e.g. `apt-get install -y default-jre-headless`',
    );
    expect(steps).toEqual(['loading the optional peer dependencies', 'checking Java']);
    expect(existsSync(join(empty, 'data'))).toBe(false);
  });
});
