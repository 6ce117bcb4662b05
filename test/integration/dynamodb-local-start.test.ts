import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DYNAMODB_LOCAL_DATA_FILE, LocalStartError, startDynamoDbLocal } from '../../shared/local/stack/dynamodb-local.js';
import { processesNaming } from '../helpers/processes.js';

const dataDir = mkdtempSync(join(tmpdir(), 'outbox-damaged-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('DynamoDB Local on damaged persisted data', () => {
  it('fails the start at once, naming the data file, instead of waiting out the start timeout, and leaves no Java behind', async () => {
    writeFileSync(join(dataDir, DYNAMODB_LOCAL_DATA_FILE), 'this is not a SQLite database, it is damage '.repeat(200));

    const error = await startDynamoDbLocal({ dbPath: dataDir, startTimeoutMs: 600_000 }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(LocalStartError);
    expect((error as Error).message).toMatch(/answers, but with errors \(.*HTTP 5\d\d\)/);
    expect((error as Error).message).toContain(`the data in ${dataDir} (${DYNAMODB_LOCAL_DATA_FILE}) may be damaged`);
    expect(processesNaming(dataDir)).toEqual([]);
  });
});
