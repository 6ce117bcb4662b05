import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { ApiRequest, ApiResponse } from './api-types.js';

const MAX_BODY_BYTES = 64 * 1024;

type BodyResult = { ok: true; body: unknown } | { ok: false; response: ApiResponse };

async function readBody(req: IncomingMessage): Promise<BodyResult> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      return {
        ok: false,
        response: { status: 413, body: { error: { code: 'BODY_TOO_LARGE', message: `the body exceeds ${MAX_BODY_BYTES} bytes` } } },
      };
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return { ok: true, body: undefined };
  try {
    return { ok: true, body: JSON.parse(text) };
  } catch (error) {
    return {
      ok: false,
      response: {
        status: 400,
        body: { error: { code: 'INVALID_JSON', message: `the body is not JSON (${(error as Error).message}); allowed: a JSON object` } },
      },
    };
  }
}

function send(res: ServerResponse, response: ApiResponse): void {
  const text = `${JSON.stringify(response.body, null, 2)}\n`;
  res.writeHead(response.status, { 'content-type': 'application/json; charset=utf-8', ...response.headers });
  res.end(text);
}

/**
 * Serves an `(ApiRequest) => ApiResponse` handler over `node:http`: JSON bodies up to 64 KiB
 * (400 when not JSON, 413 when larger), JSON answers.
 *
 * @example
 * ```ts
 * createServer(httpListener(ordersApi({ outbox, document, tableName }))).listen(3000);
 * ```
 */
export function httpListener(handler: (request: ApiRequest) => Promise<ApiResponse>): RequestListener {
  return (req, res) => {
    void (async () => {
      const read = await readBody(req);
      if (!read.ok) return send(res, read.response);
      const url = new URL(req.url ?? '/', 'http://localhost');
      const headers: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(req.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      send(res, await handler({ method: req.method ?? 'GET', path: url.pathname, headers, body: read.body }));
    })().catch(() => {
      if (!res.headersSent) send(res, { status: 500, body: { error: { code: 'INTERNAL', message: 'the request failed on the server' } } });
      else res.destroy();
    });
  };
}
