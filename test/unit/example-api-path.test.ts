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

const PATH_ALLOWED =
  'a path whose every "%" starts an escape of two hex digits, together UTF-8 (such as %2D or %C3%A9), e.g. /orders/o-1/pay';

describe('example API paths', () => {
  it.each([
    ['GET', '/orders/%E0%A4%A', '%E0%A4%A'],
    ['GET', '/orders/%', '%'],
    ['POST', '/orders/o-1/%ZZ', '%ZZ'],
    ['POST', '/%E0%A4%A', '%E0%A4%A'],
  ])(
    'answers 400 INVALID_PATH to %s %s, naming the path, the segment %s and what is allowed, reading and writing nothing',
    async (method, path, segment) => {
      const { api, calls } = apiCountingCalls();
      const response = await api({ method, path, headers: {}, body: undefined });
      expect(response).toEqual({
        status: 400,
        body: {
          error: {
            code: 'INVALID_PATH',
            message: `the path ${JSON.stringify(path)} is not valid percent-encoding (${JSON.stringify(segment)}: URI malformed); allowed: ${PATH_ALLOWED}`,
          },
        },
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

const ROUTES = 'POST /orders, GET /orders/{id}, POST /orders/{id}/pay, POST /orders/{id}/cancel';

describe('example API: 404 and 405', () => {
  it.each([
    ['GET', '/orders', 'POST', 'POST /orders (to place an order; there is no list of orders: read one at GET /orders/{id})'],
    ['GET', '/orders/', 'POST', 'POST /orders (to place an order; there is no list of orders: read one at GET /orders/{id})'],
    ['DELETE', '/orders/o-1', 'GET', 'GET /orders/{id}'],
    // The method is checked before the id: it does not depend on it.
    ['DELETE', '/orders/not!valid', 'GET', 'GET /orders/{id}'],
    ['GET', '/orders/o-1/pay', 'POST', 'POST /orders/{id}/pay'],
    ['PUT', '/orders/o-1/cancel/', 'POST', 'POST /orders/{id}/cancel'],
  ])(
    'answers 405 to %s %s, with Allow: %s and the route in the message, reading and writing nothing',
    async (method, path, allow, allowed) => {
      const { api, calls } = apiCountingCalls();
      const response = await api({ method, path, headers: {}, body: undefined });
      expect(response).toEqual({
        status: 405,
        headers: { allow },
        body: { error: { code: 'METHOD_NOT_ALLOWED', message: `${method} ${path} is not supported; allowed: ${allowed}` } },
      });
      expect(calls).toEqual([]);
    },
  );

  it.each([
    ['GET', '/'],
    ['GET', '/order'],
    ['POST', '/orders/o-1/ship'],
    ['DELETE', '/orders/o-1/ship'],
    ['POST', '/orders/o-1/pay/now'],
  ])('answers 404 to %s %s, a path no route has, naming the routes, without Allow', async (method, path) => {
    const { api, calls } = apiCountingCalls();
    const response = await api({ method, path, headers: {}, body: undefined });
    expect(response).toEqual({
      status: 404,
      body: { error: { code: 'NOT_FOUND', message: `no route ${method} ${path}; allowed: ${ROUTES}` } },
    });
    expect(calls).toEqual([]);
  });
});
