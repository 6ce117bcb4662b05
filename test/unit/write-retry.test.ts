import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import {
  TransactionConflictError,
  TransactionFailedError,
  WriteOutcomeUnknownError,
  WriteRejectedError,
  WriteValidationError,
} from '../../shared/errors.js';
import { Outbox, type OutboxOptions } from '../../shared/write/index.js';
import { IN_PROGRESS_WINDOW_MS } from '../../shared/write/writer.js';
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
    const outbox = new Outbox({ config: testConfig(), tableName: 'orders', client: fake.client, retry: { baseDelayMs: 1, maxDelayMs: 2 } });
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
      tableName: 'orders',
      client: fake.client,
      retry: { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 2 },
    });
    const error = await outbox.write({ events: [orderEvent('o-1')] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionConflictError);
    expect((error as TransactionConflictError).code).toBe('TRANSACTION_CONFLICT');
    expect((error as Error).message).toContain('TransactionConflict');
    expect(fake.attempts()).toBe(4);
  });

  it('fails at once, naming it, when the idempotency record itself is refused, instead of retrying it as a conflict', async () => {
    const recordFailure = new TransactionCanceledException({
      message: 'Transaction cancelled',
      $metadata: {},
      CancellationReasons: [{ Code: 'None' }, { Code: 'ValidationError', Message: 'Item size has exceeded the maximum allowed size' }],
    });
    const fake = fakeClient(() => recordFailure);
    const outbox = new Outbox({ config: testConfig(), tableName: 'orders', client: fake.client });
    const error = await outbox.write({ events: [orderEvent('o-1')], idempotencyKey: 'k-1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionFailedError);
    expect((error as Error).message).toBe(
      'The transaction was cancelled and nothing was written: idempotency record of key "k-1": ValidationError – Item size has exceeded the maximum allowed size',
    );
    expect(fake.attempts()).toBe(1);
  });

  it('reports a failed outbox slot as the slot of its aggregate, not as an operation index', async () => {
    const slotFailure = new TransactionCanceledException({
      message: 'Transaction cancelled',
      $metadata: {},
      CancellationReasons: [{ Code: 'None' }, { Code: 'ValidationError', Message: 'Item size has exceeded the maximum allowed size' }],
    });
    const fake = fakeClient(() => slotFailure);
    const outbox = new Outbox({ config: testConfig(), tableName: 'orders', client: fake.client });
    const error = await outbox
      .write({ operations: [{ Put: { Item: { pk: 'ORDER#o-1', sk: 'ORDER' } } }], events: [orderEvent('o-1')] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionFailedError);
    expect((error as Error).message).toBe(
      'The transaction was cancelled and nothing was written: outbox slot of order/o-1: ValidationError – Item size has exceeded the maximum allowed size',
    );
    expect(fake.attempts()).toBe(1);
  });

  it.each(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded'])(
    'retries a transaction throttled with %s once the SDK gives up, within retry.maxAttempts',
    async (name) => {
      const throttled = () => Object.assign(new Error('Rate of requests exceeds the allowed throughput'), { name });
      const fake = fakeClient((n) => (n < 3 ? throttled() : undefined));
      const outbox = new Outbox({
        config: testConfig(),
        tableName: 'orders',
        client: fake.client,
        retry: { baseDelayMs: 1, maxDelayMs: 2 },
      });
      const result = await outbox.write({ events: [orderEvent('o-1')] });
      expect(result.events[0]?.sequence).toBe(1);
      expect(fake.attempts()).toBe(3);
    },
  );

  it('names retry.maxSequenceRaces when races with other writers spend it, not retry.maxAttempts', async () => {
    const race = (seq: number) =>
      new TransactionCanceledException({
        message: 'Transaction cancelled',
        $metadata: {},
        CancellationReasons: [{ Code: 'ConditionalCheckFailed', Message: 'The conditional request failed', Item: marshall({ seq }) }],
      });
    const fake = fakeClient((n) => race(n));
    const outbox = new Outbox({ config: testConfig(), tableName: 'orders', client: fake.client, retry: { maxSequenceRaces: 2 } });
    const error = await outbox.write({ events: [orderEvent('o-1')] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionConflictError);
    // The first attempt guessed the slot new: finding it is no race. Then two races are allowed, the third is not.
    expect(error).toMatchObject({ bound: 'retry.maxSequenceRaces', attempts: 4 });
    expect((error as Error).message).toContain('raise retry.maxSequenceRaces or spread the writes');
    expect(fake.attempts()).toBe(4);
  });

  it('rejects a refusal retrying cannot cure at once, as a WriteRejectedError that says nothing was written', async () => {
    const boom = Object.assign(new Error('Requested resource not found'), { name: 'ResourceNotFoundException' });
    const fake = fakeClient(() => boom);
    const outbox = new Outbox({ config: testConfig(), tableName: 'orders', client: fake.client });
    const error = await outbox.write({ events: [orderEvent('o-1')] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteRejectedError);
    expect(error).toMatchObject({ code: 'WRITE_REJECTED', reason: 'ResourceNotFoundException', cause: boom });
    expect((error as Error).message).toContain('nothing was written');
    expect(fake.attempts()).toBe(1);
  });

  it('fails with WriteOutcomeUnknownError on an error it cannot read, from a client that runs no middleware', async () => {
    const odd = new Error('something odd');
    const fake = fakeClient(() => odd);
    const outbox = new Outbox({ config: testConfig(), tableName: 'orders', client: fake.client });
    const error = await outbox.write({ events: [orderEvent('o-1')] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteOutcomeUnknownError);
    expect(error).toMatchObject({ reason: 'NO_ANSWER', cause: odd });
    expect(fake.attempts()).toBe(1);
  });
});

describe('write helper: an attempt DynamoDB is still running', () => {
  const inProgress = () => Object.assign(new Error('Transaction is in progress'), { name: 'TransactionInProgressException' });

  it('asks again under the same token, with or without an idempotency key, so the write commits once at most', async () => {
    for (const idempotencyKey of [undefined, 'k-in-progress']) {
      const fake = fakeClient((n) => (n < 3 ? inProgress() : undefined));
      const outbox = new Outbox({
        config: testConfig(),
        tableName: 'orders',
        client: fake.client,
        retry: { baseDelayMs: 1, maxDelayMs: 2 },
      });
      const result = await outbox.write({ events: [orderEvent('o-1')], ...(idempotencyKey === undefined ? {} : { idempotencyKey }) });
      expect(result.events[0]?.sequence).toBe(1);
      expect(fake.attempts()).toBe(3);
      expect(fake.tokens[0]).toEqual(idempotencyKey ?? expect.stringMatching(/^[0-9a-f-]{36}$/));
      expect(new Set(fake.tokens)).toEqual(new Set([fake.tokens[0]]));
    }
  });

  it('gives each write without a key a token of its own, and a changed request a new one', async () => {
    const fake = fakeClient((n) => (n === 1 ? conflict() : undefined));
    const outbox = new Outbox({ config: testConfig(), tableName: 'orders', client: fake.client, retry: { baseDelayMs: 1, maxDelayMs: 2 } });
    await outbox.write({ events: [orderEvent('o-1')] });
    await outbox.write({ events: [orderEvent('o-2')] });
    expect(fake.tokens).toHaveLength(3);
    expect(new Set(fake.tokens).size).toBe(3);
  });

  it('stops asking once the attempt has been running for the window on the monotonic clock, however the clock option reads', async () => {
    // The monotonic clock alone is faked: each answer comes a second after its request; back-off sleeps stay real.
    vi.useFakeTimers({ toFake: ['performance'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const fake = fakeClient(() => {
      vi.advanceTimersByTime(1_000);
      return inProgress();
    });
    const outbox = new Outbox({
      config: testConfig(),
      tableName: 'orders',
      client: fake.client,
      // Event times from a clock that stands still, as in a test.
      clock: () => new Date('2026-11-24T10:00:00Z'),
      retry: { baseDelayMs: 1, maxDelayMs: 2 },
    });
    const error = await outbox.write({ events: [orderEvent('o-1')] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteOutcomeUnknownError);
    expect(error).toMatchObject({ code: 'WRITE_OUTCOME_UNKNOWN' });
    expect((error as Error).message).toMatch(
      /^DynamoDB was still running an earlier attempt of this write 15000 ms after it first answered TransactionInProgressException/,
    );
    expect((error as Error).message).toContain('a write with an idempotencyKey can be retried safely instead');
    expect(fake.attempts()).toBe(IN_PROGRESS_WINDOW_MS / 1_000 + 1);
    expect(new Set(fake.tokens).size).toBe(1);

    const keyed = await outbox.write({ events: [orderEvent('o-2')], idempotencyKey: 'k-unknown' }).catch((e: unknown) => e);
    expect((keyed as Error).message).toContain('Retry it with the same idempotencyKey ("k-unknown")');
  });

  it('says the outcome is unknown, not that nothing was written, when throttling spends the attempts after an in-progress answer', async () => {
    const throttled = () => Object.assign(new Error('Rate of requests exceeds the allowed throughput'), { name: 'ThrottlingException' });
    const fake = fakeClient((n) => (n === 1 ? inProgress() : throttled()));
    const outbox = new Outbox({
      config: testConfig(),
      tableName: 'orders',
      client: fake.client,
      retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 },
    });
    const error = await outbox.write({ events: [orderEvent('o-1')] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteOutcomeUnknownError);
    expect((error as Error).message).toMatch(
      /^DynamoDB answered TransactionInProgressException to an earlier attempt of this write, and refused the attempts of the \d+ ms since \(ThrottlingException, 4 attempts\) before saying how it ended; that attempt may have committed/,
    );
    expect(fake.attempts()).toBe(4);
    expect(new Set(fake.tokens).size).toBe(1);

    // Throttling alone, no attempt ever called in progress: nothing was written, as the error says.
    const plain = fakeClient(() => throttled());
    const again = new Outbox({
      config: testConfig(),
      tableName: 'orders',
      client: plain.client,
      retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 },
    });
    expect(await again.write({ events: [orderEvent('o-1')] }).catch((e: unknown) => e)).toBeInstanceOf(TransactionConflictError);
  });
});

describe('write helper options', () => {
  const build = (options: Partial<OutboxOptions>) =>
    new Outbox({ config: testConfig(), tableName: 'orders', client: fakeClient(() => undefined).client, ...options });

  it.each<[string, Partial<OutboxOptions>, string]>([
    ['a NaN TTL', { idempotencyTtlSeconds: Number.NaN }, 'idempotencyTtlSeconds is NaN; allowed: a whole number from 1'],
    ['a string TTL', { idempotencyTtlSeconds: '60' as unknown as number }, 'idempotencyTtlSeconds is "60"; allowed: a whole number from 1'],
    ['a zero TTL', { idempotencyTtlSeconds: 0 }, 'idempotencyTtlSeconds is 0; allowed: a whole number from 1'],
    ['a fractional TTL', { idempotencyTtlSeconds: 1.5 }, 'idempotencyTtlSeconds is 1.5; allowed: a whole number from 1'],
    ['negative races', { retry: { maxSequenceRaces: -1 } }, 'retry.maxSequenceRaces is -1; allowed: a whole number from 0'],
    ['fractional races', { retry: { maxSequenceRaces: 2.5 } }, 'retry.maxSequenceRaces is 2.5; allowed: a whole number from 0'],
    ['a NaN base delay', { retry: { baseDelayMs: Number.NaN } }, 'retry.baseDelayMs is NaN; allowed: milliseconds from 0 to 60000'],
    ['a negative base delay', { retry: { baseDelayMs: -1 } }, 'retry.baseDelayMs is -1; allowed: milliseconds from 0 to 60000'],
    [
      'an infinite max delay',
      { retry: { maxDelayMs: Number.POSITIVE_INFINITY } },
      'retry.maxDelayMs is Infinity; allowed: milliseconds from 0 to 60000',
    ],
    [
      'a string max delay',
      { retry: { maxDelayMs: '5' as unknown as number } },
      'retry.maxDelayMs is "5"; allowed: milliseconds from 0 to 60000',
    ],
    // Past a timer's longest wait (2^31 - 1 ms) Node fires a timer at once: every retry would go without a pause.
    [
      'a max delay past a timer',
      { retry: { maxDelayMs: 2 ** 31 } },
      'retry.maxDelayMs is 2147483648; allowed: milliseconds from 0 to 60000',
    ],
    ['a base delay over a minute', { retry: { baseDelayMs: 60_001 } }, 'retry.baseDelayMs is 60001; allowed: milliseconds from 0 to 60000'],
    [
      'a misspelt retry option',
      { retry: { maxAttempt: 1 } as unknown as OutboxOptions['retry'] },
      'options.retry has unknown key "maxAttempt"; allowed: maxAttempts, baseDelayMs, maxDelayMs, maxSequenceRaces',
    ],
    [
      'misspelt options',
      { idempotencyTTLSeconds: 60, clocks: () => new Date() } as Partial<OutboxOptions>,
      'options has unknown keys "idempotencyTTLSeconds", "clocks"; allowed: config, tableName, client, retry, idempotencyTtlSeconds, clock',
    ],
  ])('refuses %s when the Outbox is built', (_, options, message) => {
    const error = (() => {
      try {
        build(options);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(WriteValidationError);
    expect(error).toMatchObject({ code: 'INVALID_OPERATION', message });
  });

  it('rejects a client with cacheMiddleware on, given as a DynamoDBClient or as a DocumentClient, with a typed error', () => {
    const plain = new DynamoDBClient({ region: 'us-east-1', cacheMiddleware: true });
    const document = fakeClient(() => undefined).client;
    // Set after the DocumentClient was made, where its own constructor no longer checks it.
    document.config.cacheMiddleware = true;
    for (const client of [plain, document]) {
      const error = (() => {
        try {
          build({ client });
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(WriteValidationError);
      expect(error).toMatchObject({
        code: 'INVALID_OPERATION',
        message:
          "options.client has cacheMiddleware: true, which reuses one request's middleware for the next; allowed: a client whose cacheMiddleware is false or unset",
      });
    }
  });
});
