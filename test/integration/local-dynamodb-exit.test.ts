import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalStartError, startDynamoDbLocal } from '../../shared/local/stack/dynamodb-local.js';
import { processesNaming } from '../helpers/processes.js';

const dir = mkdtempSync(join(tmpdir(), 'outbox-ddb-exit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('DynamoDB Local whose Java ends before it answers', () => {
  it('fails the start as soon as Java has exited, with its output, instead of waiting out the start timeout', async () => {
    // A file where the data folder should be: DynamoDB Local prints why and exits at once.
    const notAFolder = join(dir, 'not-a-folder');
    writeFileSync(notAFolder, 'a file');
    const at = Date.now();

    const error = await startDynamoDbLocal({ dbPath: notAFolder, startTimeoutMs: 600_000 }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(LocalStartError);
    expect((error as Error).message).toMatch(
      /^DynamoDB Local exited with code \d+ before it answered: Invalid directory for database creation/,
    );
    // Java's own start-up time on a loaded machine, not the 10-minute start timeout.
    expect(Date.now() - at).toBeLessThan(45_000);
    expect(processesNaming(notAFolder)).toEqual([]);
  });
});
