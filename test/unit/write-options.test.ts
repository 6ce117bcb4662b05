import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { WriteValidationError } from '../../shared/errors.js';
import { Outbox, type OutboxOptions } from '../../shared/write/index.js';
import { testConfig } from '../helpers/factories.js';

const client = new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
const valid: OutboxOptions = { config: testConfig(), tableName: 'orders', client };

function refusal(options: unknown): unknown {
  try {
    new Outbox(options as OutboxOptions);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('the write helper built with a missing or wrong part', () => {
  it.each<[string, unknown, string]>([
    ['no options', undefined, 'options is undefined; allowed: an object with config, tableName and client'],
    ['an unset table name', { ...valid, tableName: undefined }, 'options.tableName is undefined; allowed:'],
    ['an empty table name', { ...valid, tableName: '' }, 'options.tableName is ""; allowed:'],
    ['a table name with a space', { ...valid, tableName: 'my orders' }, 'options.tableName is "my orders"; allowed:'],
    ['a table name too short for DynamoDB', { ...valid, tableName: 'ab' }, 'options.tableName is "ab"; allowed:'],
    ['a table name that is not a string', { ...valid, tableName: 42 }, 'options.tableName is 42; allowed:'],
    ['no client', { ...valid, client: undefined }, 'options.client is undefined; allowed: a DynamoDBClient or a DynamoDBDocumentClient'],
    ['a client without send', { ...valid, client: { region: 'eu-west-1' } }, 'options.client is {"region":"eu-west-1"}; allowed:'],
    [
      'no config',
      { ...valid, config: undefined },
      'options.config got undefined; allowed: the outbox config defineConfig returns (or an object defineConfig accepts)',
    ],
    [
      'a config not made by defineConfig, which defineConfig refuses',
      { ...valid, config: { routes: {} } },
      'options.config is not a valid outbox config (at source: got undefined; allowed: a non-empty RFC 3986 URI reference',
    ],
    ['a clock that is not a function', { ...valid, clock: 5 }, 'options.clock is 5; allowed: a function returning a Date, or leave it out'],
    [
      'retry given as a number of attempts',
      { ...valid, retry: 5 },
      'options.retry is 5; allowed: an object with any of maxAttempts, baseDelayMs, maxDelayMs, maxSequenceRaces, e.g. { maxAttempts: 5 }, or leave it out',
    ],
    ['retry given as null', { ...valid, retry: null }, 'options.retry is null; allowed: an object with any of'],
    ['retry given as a string', { ...valid, retry: 'fast' }, 'options.retry is "fast"; allowed: an object with any of'],
  ])('refuses %s when the Outbox is built, naming the option, the value and what is allowed', (_, options, message) => {
    const error = refusal(options);
    expect(error).toBeInstanceOf(WriteValidationError);
    expect(error).toMatchObject({ code: 'INVALID_OPERATION' });
    expect((error as Error).message.startsWith(message)).toBe(true);
  });

  it('names the table name rule in the message', () => {
    expect((refusal({ ...valid, tableName: 'ab' }) as Error).message).toBe(
      `options.tableName is "ab"; allowed: the outbox table's name (3–255 of A–Z a–z 0–9 _ . -) or its ARN`,
    );
  });

  it('reports a misspelt option as unknown rather than as the part it left unset', () => {
    const { tableName: _, ...rest } = valid;
    expect((refusal({ ...rest, tablename: 'orders' }) as Error).message).toBe(
      'options has unknown key "tablename"; allowed: config, tableName, client, retry, idempotencyTtlSeconds, clock',
    );
  });

  it.each<[string, Partial<OutboxOptions>]>([
    ['a table name at the shortest DynamoDB allows', { tableName: 'abc' }],
    ['a table name with every character DynamoDB allows', { tableName: 'Orders_v2.prod-eu' }],
    ['a table ARN', { tableName: 'arn:aws:dynamodb:eu-west-1:123456789012:table/orders' }],
    ['a DocumentClient', { client: DynamoDBDocumentClient.from(client) }],
    ['a clock', { clock: () => new Date(0) }],
    ['a copy of the config defineConfig returned', { config: { ...testConfig() } }],
    // Checked as defineConfig checks it and given its defaults, as every part given a config does.
    [
      'a config parsed from JSON without its defaults',
      {
        config: {
          source: 'urn:example:shop',
          topics: [{ name: 'orders' }],
          routes: { order: 'orders' },
        } as unknown as OutboxOptions['config'],
      },
    ],
  ])('takes %s', (_, options) => {
    expect(new Outbox({ ...valid, ...options })).toBeInstanceOf(Outbox);
  });
});
