import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { ordersApi } from '../../examples/orders/api/orders-api.js';

/** The API on clients that count their calls: a path refused before any read or write makes none. */
function apiCountingCalls() {
  const calls: string[] = [];
  const api = ordersApi({
    outbox: {
      write: (input) => {
        calls.push(`write ${JSON.stringify(input.events)}`);
        return Promise.reject(new Error('no write expected'));
      },
    },
    document: {
      send: (command: { constructor: { name: string } }) => {
        calls.push(`send ${command.constructor.name}`);
        return Promise.reject(new Error('no read expected'));
      },
    } as unknown as DynamoDBDocumentClient,
    tableName: 'orders',
  });
  return { api, calls };
}

describe('example API paths', () => {
  it.each([
    ['GET', '/orders/%E0%A4%A'],
    ['GET', '/orders/%'],
    ['POST', '/orders/o-1/%ZZ'],
    ['POST', '/%E0%A4%A'],
  ])(
    'answers 400 INVALID_PATH to %s %s, a segment that is not valid percent-encoding, reading and writing nothing',
    async (method, path) => {
      const { api, calls } = apiCountingCalls();
      const response = await api({ method, path, headers: {}, body: undefined });
      expect(response).toEqual({
        status: 400,
        body: { error: { code: 'INVALID_PATH', message: 'the path is not valid percent-encoding: URI malformed' } },
      });
      expect(calls).toEqual([]);
    },
  );

  it('decodes a valid escape in the id, then checks the id as it reads', async () => {
    const { api, calls } = apiCountingCalls();
    const response = await api({ method: 'GET', path: '/orders/o%2F1', headers: {}, body: undefined });
    expect(response).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_FIELD', field: 'id', message: expect.stringContaining('order id "o/1" is not valid') } },
    });
    expect(calls).toEqual([]);
  });
});
