import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { ApiError, type ApiRequest, type ApiResponse } from './api-types.js';

const MAX_BODY_BYTES = 64 * 1024;
const BODY_ALLOWED = `a JSON body of at most ${MAX_BODY_BYTES} bytes (64 KiB)`;

/**
 * A body over the limit, by the size its Content-Length declares (Node reads exactly that many
 * bytes), or, sent without one (chunked), by what had been read when reading stopped.
 */
function bodyTooLarge(req: IncomingMessage, read: number): ApiError {
  const declared = req.headers['content-length'];
  const size = declared !== undefined && /^\d+$/.test(declared) ? declared : undefined;
  const shown = size === undefined ? `more than ${MAX_BODY_BYTES} bytes (${read} read, sent without Content-Length)` : `${size} bytes`;
  return new ApiError(413, 'BODY_TOO_LARGE', `the body is ${shown}; allowed: ${BODY_ALLOWED}`);
}

/** The body as JSON (`undefined` when empty), or why it could not be read: handed on, for the API to answer once it has routed the request. */
async function readBody(req: IncomingMessage): Promise<Pick<ApiRequest, 'body' | 'bodyError'>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return { body: undefined, bodyError: bodyTooLarge(req, size) };
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return { body: undefined };
  try {
    return { body: JSON.parse(text) };
  } catch (error) {
    const message = `the body is not JSON (${(error as Error).message}); allowed: a JSON object`;
    return { body: undefined, bodyError: new ApiError(400, 'INVALID_JSON', message) };
  }
}

function send(res: ServerResponse, response: ApiResponse): void {
  const text = `${JSON.stringify(response.body, null, 2)}\n`;
  res.writeHead(response.status, { 'content-type': 'application/json; charset=utf-8', ...response.headers });
  res.end(text);
}

/**
 * Serves an `(ApiRequest) => ApiResponse` handler over `node:http`: JSON bodies up to 64 KiB,
 * JSON answers. A body that is not JSON (400) or larger (413) is handed on as the request's
 * `bodyError`, so the handler answers a wrong route or method first.
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
      const url = new URL(req.url ?? '/', 'http://localhost');
      const headers: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(req.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      send(res, await handler({ method: req.method ?? 'GET', path: url.pathname, headers, ...read }));
    })().catch(() => {
      if (!res.headersSent) send(res, { status: 500, body: { error: { code: 'INTERNAL', message: 'the request failed on the server' } } });
      else res.destroy();
    });
  };
}
