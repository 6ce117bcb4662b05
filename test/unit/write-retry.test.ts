import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { TransactionConflictError } from '../../shared/errors.js';
import { Outbox } from '../../shared/write.js';
import { orderEvent, testConfig } from '../helpers/factories.js';

/** A DocumentClient whose transactions are answered by `answer` (attempt number → error or success). */
function fakeClient(answer: (attempt: number) => Error | undefined) {
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }),
  );
  let attempts = 0;
  const tokens: (string | undefined)[] = [];
  client.send = (async (command: { input: { ClientRequestToken?: string } }) => {
    attempts++;
    tokens.push(command.input.ClientRequestToken);
    const error = answer(attempts);
    if (error) throw error;
    return {};
  }) as typeof client.send;
  return { client, attempts: () => attempts, tokens };
}

const conflict = () =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: [{ Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' }],
  });

describe('write helper retries', () => {
  it('retries a transaction conflict and succeeds within the bound', async () => {
    const fake = fakeClient((n) => (n < 3 ? conflict() : undefined));
    const outbox = new Outbox({ config: testConfig(), tableName: 't', client: fake.client, retry: { baseDelayMs: 1, maxDelayMs: 2 } });
    const result = await outbox.write({ events: [orderEvent('o-1')], idempotencyKey: 'k-1' });
    expect(result.events[0]?.sequence).toBe(1);
    expect(fake.attempts()).toBe(3);
    expect(fake.tokens[0]).toBe('k-1');
    // A changed request is never sent under a token DynamoDB already saw.
    expect(new Set(fake.tokens).size).toBe(3);
  });

  it('fails with TransactionConflictError once the bounded attempts are spent', async () => {
    const fake = fakeClient(() => conflict());
    const outbox = new Outbox({
      config: testConfig(),
      tableName: 't',
      client: fake.client,
      retry: { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 2 },
    });
    const error = await outbox.write({ events: [orderEvent('o-1')] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionConflictError);
    expect((error as TransactionConflictError).code).toBe('TRANSACTION_CONFLICT');
    expect((error as Error).message).toContain('TransactionConflict');
    expect(fake.attempts()).toBe(4);
  });

  it('passes unknown SDK errors through unchanged', async () => {
    const boom = Object.assign(new Error('Requested resource not found'), { name: 'ResourceNotFoundException' });
    const fake = fakeClient(() => boom);
    const outbox = new Outbox({ config: testConfig(), tableName: 't', client: fake.client });
    await expect(outbox.write({ events: [orderEvent('o-1')] })).rejects.toBe(boom);
    expect(fake.attempts()).toBe(1);
  });
});
