import { describe, expect, it } from 'vitest';
import { LocalStackError } from '../../shared/local/errors.js';
import { startDynamoDbLocal } from '../../shared/local/stack/dynamodb-local.js';

describe('startDynamoDbLocal options of the wrong shape', () => {
  it.each([
    // Misspelt, it was ignored: DynamoDB Local ran in memory, and the data the test meant to keep was gone.
    [{ dbpath: '/tmp/data' }, 'options has unknown key "dbpath"; allowed: port, dbPath, startTimeoutMs, signal'],
    [{ dbpath: '/tmp/data', Port: 8000 }, 'options has unknown keys "dbpath", "Port"; allowed: port, dbPath, startTimeoutMs, signal'],
    [null, 'options is null; allowed: an object with port, dbPath, startTimeoutMs, signal'],
    [{ dbPath: '' }, 'dbPath is ""; allowed: a folder path, or leave it out for in memory'],
    [{ dbPath: 5 }, 'dbPath is 5; allowed: a folder path, or leave it out for in memory'],
  ])('are refused with INVALID_OPTION before Java starts (%#)', async (options, message) => {
    const error = await startDynamoDbLocal(options as never).then(
      async (ddb) => {
        await ddb.stop();
        throw new Error('DynamoDB Local started');
      },
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LocalStackError);
    expect(error).toMatchObject({ code: 'INVALID_OPTION', message });
  });
});
