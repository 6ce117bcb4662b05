import { describe, expect, it } from 'vitest';
import { LocalStackError } from '../../shared/local/errors.js';
import { startDynamoDbLocal } from '../../shared/local/stack/dynamodb-local.js';

describe('startDynamoDbLocal options', () => {
  it('rejects a port that is no port with INVALID_OPTION, naming it, before Java starts', async () => {
    for (const port of [70_000, 1.5, -1]) {
      const error = await startDynamoDbLocal({ port }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LocalStackError);
      expect(error).toMatchObject({ code: 'INVALID_OPTION' });
      expect((error as Error).message).toBe(`port is ${port}; allowed: a whole number from 0 (a free port) to 65535`);
    }
  });

  it('rejects a start timeout below 1 ms with INVALID_OPTION instead of failing as if DynamoDB Local never answered', async () => {
    const error = await startDynamoDbLocal({ startTimeoutMs: -5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LocalStackError);
    expect((error as Error).message).toBe('startTimeoutMs is -5; allowed: a whole number of ms from 1 to 3600000 (an hour)');
  });

  it.each([
    // Misspelt, it was ignored: DynamoDB Local ran in memory, and the data the test meant to keep was gone.
    [{ dbpath: '/tmp/data' }, 'options.dbpath is "/tmp/data", an unknown option; allowed: port, dbPath, startTimeoutMs'],
    [null, 'options is null; allowed: an object with port, dbPath, startTimeoutMs'],
    [{ dbPath: '' }, 'dbPath is ""; allowed: a folder path, or none for in memory'],
    [{ dbPath: 5 }, 'dbPath is 5; allowed: a folder path, or none for in memory'],
  ])('rejects options of the wrong shape with INVALID_OPTION before Java starts (%#)', async (options, message) => {
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
