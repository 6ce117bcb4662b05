import { Readable } from 'node:stream';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import {
  Outbox,
  type OutboxError,
  TransactionConflictError,
  TransactionFailedError,
  WriteOutcomeUnknownError,
  WriteRejectedError,
  WriteValidationError,
} from 'dynamodb-outbox';
import { describe, expect, it } from 'vitest';
import { orderEvent, testConfig } from '../helpers/factories.js';

/** One attempt's fate, as the transport meets it: a thrown error, or DynamoDB's HTTP answer. */
type Answer = { throws: Error } | { status: number; type?: string; message?: string; body?: object };

const network = (code: string, message: string): Error => Object.assign(new Error(message), { code });
const timeout = (): Error => Object.assign(new Error('Connection timed out after 1000 ms'), { name: 'TimeoutError' });
const refusal = (status: number, type: string, message: string): Answer => ({ status, type, message });
const cancelled = (codes: string[]): Answer => ({
  status: 400,
  type: 'TransactionCanceledException',
  message: 'Transaction cancelled',
  body: { CancellationReasons: codes.map((Code) => ({ Code })) },
});

/**
 * A real DynamoDBClient (its middleware, its retries, its error parsing) whose transport answers
 * each request it sends by `script`: the answer for the nth request, by operation (the last
 * answer repeats). Nothing leaves the process.
 */
function scriptedClient(
  script: Partial<Record<'TransactWriteItems' | 'GetItem', Answer[]>>,
  options: { maxAttempts?: number; credentials?: DynamoDBClientConfig['credentials'] } = {},
) {
  const sent: string[] = [];
  const requestHandler = {
    handle: async (request: { headers: Record<string, string> }) => {
      const operation = (request.headers['x-amz-target'] ?? '').split('.')[1] as 'TransactWriteItems' | 'GetItem';
      const answers = script[operation] ?? [{ status: 200 }];
      const answer = answers[Math.min(sent.filter((o) => o === operation).length, answers.length - 1)] as Answer;
      sent.push(operation);
      if ('throws' in answer) throw answer.throws;
      const body =
        answer.type === undefined
          ? (answer.body ?? {})
          : { __type: `com.amazonaws.dynamodb.v20120810#${answer.type}`, message: answer.message, ...answer.body };
      const headers = { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': `req-${sent.length}` };
      return { response: { statusCode: answer.status, headers, body: Readable.from([Buffer.from(JSON.stringify(body))]) } };
    },
    updateHttpClientConfig: () => {},
    httpHandlerConfigs: () => ({}),
  };
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: 'http://dynamodb.invalid',
    credentials: options.credentials ?? { accessKeyId: 'x', secretAccessKey: 'x' },
    maxAttempts: options.maxAttempts ?? 1,
    requestHandler,
  });
  return { client, sent };
}

const outboxOn = (client: DynamoDBClient | DynamoDBDocumentClient) =>
  new Outbox({ config: testConfig(), tableName: 'shop', client, retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 } });

async function failure(script: Parameters<typeof scriptedClient>[0], options: { maxAttempts?: number; idempotencyKey?: string } = {}) {
  const { client, sent } = scriptedClient(script, options);
  const key = options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey };
  const error = await outboxOn(client)
    .write({ operations: [{ Put: { TableName: 'orders', Item: { pk: 'ORDER#o-1', sk: 'ORDER' } } }], events: [orderEvent('o-1')], ...key })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  if (error === undefined) throw new Error('the write succeeded');
  return { error: error as OutboxError & { cause?: unknown }, sent };
}

describe('write(): a failure whose outcome is unknown says so', () => {
  it.each<[string, Answer, RegExp]>([
    ['a reset connection', { throws: network('ECONNRESET', 'socket hang up') }, /\(ECONNRESET \(socket hang up\)\)/],
    ['a timeout', { throws: timeout() }, /\(TimeoutError \(Connection timed out after 1000 ms\)\)/],
    [
      'an aborted request',
      { throws: Object.assign(new Error('Request aborted'), { name: 'AbortError' }) },
      /\(AbortError \(Request aborted\)\)/,
    ],
    [
      'an HTTP 500',
      refusal(500, 'InternalServerError', 'Internal server error'),
      /\(InternalServerError, HTTP 500 \(Internal server error\)\)/,
    ],
    ['an HTTP 503', { status: 503 }, /HTTP 503/],
  ])('fails with WriteOutcomeUnknownError after %s, keeping the SDK error as cause', async (_, answer, named) => {
    const { error, sent } = await failure({ TransactWriteItems: [answer] }, { idempotencyKey: 'k-1' });

    expect(error).toBeInstanceOf(WriteOutcomeUnknownError);
    expect(error).toMatchObject({ code: 'WRITE_OUTCOME_UNKNOWN', reason: 'NO_ANSWER', idempotencyKey: 'k-1' });
    expect(error.message).toMatch(/^DynamoDB gave no answer that says whether this write committed \(/);
    expect(error.message).toMatch(named);
    expect(error.message).toContain('may have reached DynamoDB and committed, or not');
    expect(error.message).toContain('Retry it with the same idempotencyKey ("k-1"): that returns the committed result, or writes it once.');
    expect(error.cause).toBeInstanceOf(Error);
    // Not sent again by the helper: the SDK's own retries are the ones the client is configured with.
    expect(sent).toEqual(['TransactWriteItems']);
  });

  it('says that a retry may write twice when the write has no idempotency key', async () => {
    const { error } = await failure({ TransactWriteItems: [{ throws: network('ECONNRESET', 'socket hang up') }] });

    expect(error).toBeInstanceOf(WriteOutcomeUnknownError);
    expect(error.message).toContain('Without an idempotencyKey a retry may write it twice: read the written items to learn whether it did');
    expect((error.cause as { code?: string }).code).toBe('ECONNRESET');
  });

  it('names the SDK attempts the lost answer came after', async () => {
    const reset = network('ECONNRESET', 'socket hang up');
    const { error, sent } = await failure({ TransactWriteItems: [{ throws: reset }] }, { maxAttempts: 2 });

    expect(sent).toEqual(['TransactWriteItems', 'TransactWriteItems']);
    expect(error).toBeInstanceOf(WriteOutcomeUnknownError);
    expect(error.cause).toMatchObject({ code: 'ECONNRESET', $metadata: { attempts: 2 } });
  });

  it('says the outcome is unknown, not that nothing was written, when the SDK retried a lost answer into throttling', async () => {
    // The first attempt may have committed; the throttled ones after it cannot say.
    const script = {
      TransactWriteItems: [{ throws: network('ECONNRESET', 'socket hang up') }, refusal(400, 'ThrottlingException', 'Rate exceeded')],
    };
    const { error, sent } = await failure(script, { maxAttempts: 2 });

    expect(error).toBeInstanceOf(WriteOutcomeUnknownError);
    expect(error.message).toMatch(
      /^An attempt of this write got no answer from DynamoDB \(ECONNRESET \(socket hang up\)\), and the attempts since were refused \(ThrottlingException, 3 attempts\)/,
    );
    // The helper kept the request's token through its own retries, so none could commit it twice.
    expect(sent.length).toBe(6);

    // Throttling alone: nothing was written, as TransactionConflictError says.
    const throttled = await failure({ TransactWriteItems: [refusal(400, 'ThrottlingException', 'Rate exceeded')] });
    expect(throttled.error).toBeInstanceOf(TransactionConflictError);
    expect(throttled.error.message).toContain('nothing was written');
  });

  it('says the outcome is unknown when a refusal follows a lost answer under the same request', async () => {
    const script = {
      TransactWriteItems: [
        { throws: timeout() },
        refusal(400, 'ExpiredTokenException', 'The security token included in the request is expired'),
      ],
    };
    const { error } = await failure(script, { maxAttempts: 2 });

    expect(error).toBeInstanceOf(WriteOutcomeUnknownError);
    expect(error.message).toContain('the attempts since were refused (ExpiredTokenException, 1 attempt)');
  });

  it('knows nothing was written when DynamoDB cancels the request after a lost answer', async () => {
    // A token that committed is answered with success: a cancellation under it says none of its attempts did.
    const script = {
      TransactWriteItems: [{ throws: network('ECONNRESET', 'socket hang up') }, cancelled(['ConditionalCheckFailed', 'None'])],
    };
    const { error } = await failure(script, { maxAttempts: 2 });

    expect(error).toBeInstanceOf(TransactionFailedError);
    expect(error.message).toMatch(
      /^The transaction was cancelled and nothing was written: operations\[0\] \(Put\): ConditionalCheckFailed/,
    );
  });

  it('says the outcome is unknown when the idempotency record cannot be read after a token mismatch', async () => {
    const script = {
      TransactWriteItems: [refusal(400, 'IdempotentParameterMismatchException', 'Idempotent parameters mismatch')],
      GetItem: [{ throws: network('ECONNRESET', 'socket hang up') }],
    };
    const { error, sent } = await failure(script, { idempotencyKey: 'k-2' });

    expect(sent).toEqual(['TransactWriteItems', 'GetItem']);
    expect(error).toBeInstanceOf(WriteOutcomeUnknownError);
    expect(error).toMatchObject({ reason: 'RECORD_UNREADABLE', idempotencyKey: 'k-2' });
    expect(error.message).toContain(
      "reading the key's idempotency record to learn whether that request committed failed (ECONNRESET (socket hang up))",
    );
    expect(error.message).toContain('Retry it with the same idempotencyKey ("k-2")');
  });

  it("says the outcome is unknown, as for a failed read, when the client's send() throws the read before sending it", async () => {
    // The commit's own send() throwing so means nothing was written; the read's cannot say whether the request under the key committed.
    const { client, sent } = scriptedClient({
      TransactWriteItems: [refusal(400, 'IdempotentParameterMismatchException', 'Idempotent parameters mismatch')],
    });
    const document = DynamoDBDocumentClient.from(client);
    const send = document.send.bind(document) as (command: unknown) => Promise<unknown>;
    const throwing = new TypeError('middleware failed to assemble the request');
    Object.assign(document, {
      send: (command: unknown) => {
        if (command instanceof GetCommand) throw throwing;
        return send(command);
      },
    });
    const error = await outboxOn(document)
      .write({ events: [orderEvent('o-1')], idempotencyKey: 'k-3' })
      .then(
        () => undefined,
        (e: unknown) => e as WriteOutcomeUnknownError,
      );

    expect(sent).toEqual(['TransactWriteItems']);
    expect(error).toBeInstanceOf(WriteOutcomeUnknownError);
    expect(error).toMatchObject({ reason: 'RECORD_UNREADABLE', idempotencyKey: 'k-3', cause: throwing });
    expect(error?.message).toContain('failed (TypeError (middleware failed to assemble the request)); the write may have committed');
  });
});

describe('write(): a failure that wrote nothing says so, and what to do', () => {
  it('rejects with WriteRejectedError naming the permissions a transaction needs when access is denied', async () => {
    const denied = 'User: arn:aws:iam::000000000000:role/api is not authorized to perform: dynamodb:UpdateItem';
    const { error } = await failure({ TransactWriteItems: [refusal(400, 'AccessDeniedException', denied)] });

    expect(error).toBeInstanceOf(WriteRejectedError);
    expect(error).toMatchObject({ code: 'WRITE_REJECTED', reason: 'AccessDeniedException' });
    expect(error.message).toMatch(
      new RegExp(`^DynamoDB refused the write \\(AccessDeniedException: ${denied}\\); nothing was written\\. `),
    );
    expect(error.message).toContain('Grant the caller, on shop, orders, the permission of each action of the write');
    // Each outbox slot goes out as a Put (the whole item, conditional on the sequence seen): an UpdateItem grant alone denies it.
    expect(error.message).toContain('dynamodb:PutItem (a Put, each outbox slot, and the idempotency record)');
    expect(error.message).toContain('dynamodb:UpdateItem (an Update, and a slot found without its creation time)');
    expect(error.cause).toMatchObject({ name: 'AccessDeniedException', $metadata: { httpStatusCode: 400 } });
  });

  it.each(['UnrecognizedClientException', 'InvalidSignatureException', 'ExpiredTokenException'])(
    'rejects with WriteRejectedError pointing at the credentials on %s',
    async (type) => {
      const { error } = await failure({
        TransactWriteItems: [refusal(400, type, 'The security token included in the request is invalid.')],
      });

      expect(error).toBeInstanceOf(WriteRejectedError);
      expect(error.message).toMatch(new RegExp(`^DynamoDB refused the write \\(${type}: `));
      expect(error.message).toContain(
        "nothing was written. Check the DynamoDB client's credentials (missing, expired, or of another account) and its region.",
      );
    },
  );

  it('rejects with WriteRejectedError naming the tables when one does not exist', async () => {
    const { error } = await failure({ TransactWriteItems: [refusal(400, 'ResourceNotFoundException', 'Requested resource not found')] });

    expect(error).toBeInstanceOf(WriteRejectedError);
    expect(error.message).toBe(
      "DynamoDB refused the write (ResourceNotFoundException: Requested resource not found); nothing was written. A table the write names (shop, orders) does not exist in the client's account and region, or is not ACTIVE.",
    );
  });

  it('rejects with WriteValidationError when DynamoDB finds the request invalid', async () => {
    const invalid = 'One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N';
    const { error } = await failure({ TransactWriteItems: [refusal(400, 'ValidationException', invalid)] });

    expect(error).toBeInstanceOf(WriteValidationError);
    expect(error).toMatchObject({ code: 'INVALID_OPERATION' });
    expect(error.message).toBe(
      `DynamoDB refused the transaction as invalid (ValidationException: ${invalid}); nothing was written. Fix the operation it names.`,
    );
  });

  it('rejects with WriteRejectedError, sending nothing, when the client has no credentials', async () => {
    const missing = Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' });
    const { client, sent } = scriptedClient(
      {},
      {
        credentials: async () => {
          throw missing;
        },
      },
    );
    const error = await outboxOn(client)
      .write({ events: [orderEvent('o-1')] })
      .catch((e: unknown) => e);

    expect(sent).toEqual([]);
    expect(error).toBeInstanceOf(WriteRejectedError);
    expect((error as Error).message).toMatch(
      /^The write was never sent to DynamoDB \(CredentialsProviderError: Could not load credentials from any providers\); nothing was written\. Check the DynamoDB client's credentials/,
    );
    expect((error as Error).cause).toBe(missing);
  });
});
