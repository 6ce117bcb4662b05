import { createServer, type RequestListener, type ServerResponse } from 'node:http';
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

/** How long `close()` waits for the requests in flight before it cuts them, in ms. */
export const API_DRAIN_MS = 5000;

/**
 * Binds the API's port at once, so a taken port fails (`PORT_IN_USE`) in milliseconds, before
 * Java starts; requests meanwhile get 503 `STARTING`. `close()` is graceful: the port stops
 * taking connections and idle ones are closed at once; requests in flight are answered (each
 * connection closed after its answer) for up to `drainMs`, and only those still unanswered then
 * are cut.
 *
 * @example
 * ```ts
 * const server = await bindApiServer(3000, '127.0.0.1');
 * server.serve(listener);
 * await server.close();
 * ```
 */
export async function bindApiServer(port: number, host: string, drainMs = API_DRAIN_MS): Promise<ApiServer> {
  let listener = starting;
  let closing = false;
  /** Responses not yet sent in full: once closing, each connection is closed after its answer, not kept alive. */
  const inFlight = new Set<ServerResponse>();
  const closeAfterAnswer = (res: ServerResponse): void => {
    if (!res.headersSent) res.shouldKeepAlive = false;
    // Taken now: Node detaches the socket from the response before 'finish' listeners run.
    const socket = res.socket;
    if (res.writableFinished) socket?.end();
    else res.once('finish', () => socket?.end());
  };
  const http = createServer((req, res) => {
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
    if (closing) closeAfterAnswer(res);
    listener(req, res);
  });
  const bound = await listen(http, port, host, 'the example API');
  let closed: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    serve(next) {
      listener = next;
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        closing = true;
        for (const res of inFlight) closeAfterAnswer(res);
        const cut = setTimeout(() => http.closeAllConnections(), drainMs);
        // Stops taking connections, closes the idle ones, and calls back once the last one has ended.
        http.close(() => {
          clearTimeout(cut);
          resolve();
        });
        http.closeIdleConnections();
      });
      return closed;
    },
  };
}
