import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { httpListener } from '../../examples/orders/api/http-adapter.js';
import { ordersApi } from '../../examples/orders/api/orders-api.js';
import { type ApiServer, bindApiServer } from '../../shared/local/stack/api-server.js';

const servers: ApiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** The example API over HTTP, on clients that count their calls: a request refused before any read or write makes none. */
async function serveApi() {
  const calls: string[] = [];
  const api = ordersApi({
    outbox: {
      write: () => {
        calls.push('write');
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
  const server = await bindApiServer(0, '127.0.0.1');
  servers.push(server);
  server.serve(httpListener(api));
  const send = async (method: string, path: string, body: string) => {
    const streamed = body.endsWith(', chunked');
    const text = BODIES[streamed ? body.slice(0, -', chunked'.length) : body] as string;
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(streamed ? { body: chunked(text), duplex: 'half' } : { body: text }),
    } as RequestInit);
    return {
      status: response.status,
      allow: response.headers.get('allow'),
      body: (await response.json()) as { error: { code: string; message: string } },
    };
  };
  return { send, calls };
}

/** Bodies the adapter cannot hand on: not JSON, and over its 64 KiB. */
const BODIES: Record<string, string> = { 'not JSON': '{"total": 12,', 'over 64 KiB': `{"reason":"${'x'.repeat(70 * 1024)}"}` };
const BODY_BYTES = Buffer.byteLength(BODIES['over 64 KiB'] as string);
const BODY_ALLOWED = 'a JSON body of at most 65536 bytes (64 KiB)';

/** A body as a stream: fetch sends it chunked, without Content-Length. */
const chunked = (text: string) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      const bytes = new TextEncoder().encode(text);
      for (let at = 0; at < bytes.length; at += 16 * 1024) controller.enqueue(bytes.subarray(at, at + 16 * 1024));
      controller.close();
    },
  });

describe('example API over HTTP: the route is checked before the body', () => {
  it.each([
    ['POST', '/nowhere', 'not JSON'],
    ['POST', '/orders/o-1/ship', 'not JSON'],
    ['POST', '/nowhere', 'over 64 KiB'],
  ])('answers 404 to %s %s with a body %s, reading and writing nothing', async (method, path, body) => {
    const { send, calls } = await serveApi();
    const response = await send(method, path, body);
    expect(response).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    expect(calls).toEqual([]);
  });

  it.each([
    ['DELETE', '/orders/o-1', 'not JSON', 'GET'],
    ['PUT', '/orders', 'not JSON', 'POST'],
    ['PUT', '/orders/o-1/cancel', 'over 64 KiB', 'POST'],
  ])('answers 405 to %s %s with a body %s, with Allow: %s', async (method, path, body, allow) => {
    const { send, calls } = await serveApi();
    expect(await send(method, path, body)).toMatchObject({ status: 405, allow, body: { error: { code: 'METHOD_NOT_ALLOWED' } } });
    expect(calls).toEqual([]);
  });

  it('answers 400 INVALID_PATH to an id that is not valid percent-encoding, whatever its body, naming the path', async () => {
    const { send, calls } = await serveApi();
    expect(await send('POST', '/orders/%E0%A4%A/pay', 'not JSON')).toMatchObject({
      status: 400,
      body: {
        error: {
          code: 'INVALID_PATH',
          message: expect.stringMatching(/^the path "\/orders\/%E0%A4%A\/pay" is not valid percent-encoding \("%E0%A4%A": .*\); allowed: /),
        },
      },
    });
    expect(calls).toEqual([]);
  });

  it('answers 400 INVALID_FIELD for an id that is not valid before it looks at the body', async () => {
    const { send, calls } = await serveApi();
    expect(await send('POST', '/orders/not!valid/cancel', 'not JSON')).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_FIELD', field: 'id' } },
    });
    expect(calls).toEqual([]);
  });

  it('refuses the body of a known route once routed: 400 INVALID_JSON, 413 BODY_TOO_LARGE, reading and writing nothing', async () => {
    const { send, calls } = await serveApi();
    expect(await send('POST', '/orders', 'not JSON')).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_JSON', message: expect.stringContaining('the body is not JSON (') } },
    });
    expect(await send('POST', '/orders/o-1/cancel', 'over 64 KiB')).toMatchObject({
      status: 413,
      body: { error: { code: 'BODY_TOO_LARGE', message: `the body is ${BODY_BYTES} bytes; allowed: ${BODY_ALLOWED}` } },
    });
    expect(calls).toEqual([]);
  });

  it('answers 413 BODY_TOO_LARGE to a body sent without its length (chunked), saying how much came before reading stopped', async () => {
    const { send, calls } = await serveApi();
    const response = await send('POST', '/orders', 'over 64 KiB, chunked');
    expect(response).toMatchObject({
      status: 413,
      body: {
        error: {
          code: 'BODY_TOO_LARGE',
          message: expect.stringMatching(/^the body is more than 65536 bytes \(\d+ read, sent without Content-Length\); allowed: /),
        },
      },
    });
    expect(response.body.error.message).toContain(`; allowed: ${BODY_ALLOWED}`);
    expect(calls).toEqual([]);
  });
});
