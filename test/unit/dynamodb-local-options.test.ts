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
});
