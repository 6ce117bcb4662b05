import { createServer, type RequestListener } from 'node:http';
import { listen } from './listen.js';

/** An HTTP server bound before the stack starts, answering 503 until it is given its listener. */
export interface ApiServer {
  readonly url: string;
  serve(listener: RequestListener): void;
  close(): Promise<void>;
}

const starting: RequestListener = (_req, res) => {
  res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
  res.end(JSON.stringify({ error: { code: 'STARTING', message: 'the local stack is still starting' } }));
};

/**
 * Binds the API's port at once, so a taken port fails (`PORT_IN_USE`) in milliseconds, before
 * Java starts; requests meanwhile get 503 `STARTING`.
 *
 * @example
 * ```ts
 * const server = await bindApiServer(3000, '127.0.0.1');
 * server.serve(listener);
 * await server.close();
 * ```
 */
export async function bindApiServer(port: number, host: string): Promise<ApiServer> {
  let listener = starting;
  const http = createServer((req, res) => listener(req, res));
  const bound = await listen(http, port, host, 'the example API');
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    serve(next) {
      listener = next;
    },
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
