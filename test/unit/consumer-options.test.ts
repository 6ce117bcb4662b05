import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createConsumer } from '../../shared/consumer/consumer.js';
import { ConsumerOptionsError } from '../../shared/consumer/errors.js';
import { classify } from '../../shared/consumer/sequence-tracker.js';
import type { ConsumerOptions } from '../../shared/consumer/types.js';

const document = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:1' }));
const valid: ConsumerOptions = { name: 'view', handlers: { 'order.placed': { handle: () => {} } }, inbox: { document, tableName: 't' } };

const rejection = (options: unknown): ConsumerOptionsError => {
  try {
    createConsumer(options as ConsumerOptions);
  } catch (error) {
    if (error instanceof ConsumerOptionsError) return error;
    throw error;
  }
  throw new Error('createConsumer accepted the options');
};

describe('consumer options', () => {
  it('accepts valid options', () => {
    expect(createConsumer(valid).name).toBe('view');
  });

  it('rejects a misspelt option, naming it and the allowed ones', () => {
    const error = rejection({ ...valid, sequenceTraking: true });
    expect(error.field).toBe('options.sequenceTraking');
    expect(error.message).toContain('allowed: name, handlers');
  });

  it('rejects a consumer name that cannot be part of a key', () => {
    expect(rejection({ ...valid, name: 'a#b' }).message).toContain('got "a#b"; allowed: 1–64 letters');
  });

  it('rejects a handler without handle, a bad idempotency mode and a schema that is not a Standard Schema', () => {
    expect(rejection({ ...valid, handlers: { x: {} } }).field).toBe('handlers["x"].handle');
    expect(rejection({ ...valid, handlers: { x: { handle: () => {}, idempotency: 'once' } } }).message).toContain(
      '"transaction" or "claim"',
    );
    expect(rejection({ ...valid, handlers: { x: { handle: () => {}, schema: {} } } })).toMatchObject({
      field: 'handlers["x"].schema',
      message: expect.stringContaining('got an instance of Object, which is not a Standard Schema'),
    });
  });

  it('rejects an inbox client that is not a DocumentClient, saying what it got', () => {
    const plain = new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:1' });
    expect(rejection({ ...valid, inbox: { document: plain, tableName: 't' } })).toMatchObject({
      field: 'inbox.document',
      message: expect.stringContaining(
        'got an instance of DynamoDBClient, which is not a DynamoDBDocumentClient; allowed: DynamoDBDocumentClient.from(',
      ),
    });
    expect(rejection({ ...valid, inbox: { document: 'client', tableName: 't' } }).message).toContain('got "client"');
  });

  it('rejects empty handlers, a missing table and a zero concurrency', () => {
    expect(rejection({ ...valid, handlers: {} }).field).toBe('handlers');
    expect(rejection({ ...valid, inbox: { document, tableName: '' } }).field).toBe('inbox.tableName');
    expect(rejection({ ...valid, concurrency: 0 }).field).toBe('concurrency');
  });
});

describe('classify', () => {
  const at = (epoch: string, sequence: number) => ({ epoch, sequence });
  it('sees the first event, the next one, a gap and a late one', () => {
    expect(classify(undefined, at('e1', 5)).status).toBe('first');
    expect(classify(at('e1', 5), at('e1', 6)).status).toBe('in-order');
    expect(classify(at('e1', 5), at('e1', 9))).toMatchObject({ status: 'gap', missing: 3 });
    expect(classify(at('e1', 5), at('e1', 5)).status).toBe('out-of-order');
    expect(classify(at('e2', 1), at('e1', 9)).status).toBe('out-of-order');
  });

  it('takes a new epoch starting at 1 as in order, later as a gap of unknown size', () => {
    expect(classify(at('e1', 5), at('e2', 1)).status).toBe('in-order');
    expect(classify(at('e1', 5), at('e2', 2))).toMatchObject({ status: 'gap', missing: 'unknown' });
  });
});
