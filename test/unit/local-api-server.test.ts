import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type ApiServer, bindApiServer } from '../../shared/local/stack/api-server.js';
import { Gate } from '../helpers/gate.js';
import { settlesWithin, waitFor } from '../helpers/wait.js';

const servers: ApiServer[] = [];
const gates: Gate[] = [];
afterEach(async () => {
  for (const gate of gates.splice(0)) gate.open();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** The API server with a listener that answers `/slow` only once `gate` opens (`received` counts its requests), the rest at once. */
async function serverWithSlowRoute(drainMs?: number) {
  const server = await bindApiServer(0, '127.0.0.1', drainMs);
  servers.push(server);
  const gate = new Gate();
  gates.push(gate);
  gate.close();
  const seen = { received: 0 };
  server.serve(async (req, res) => {
    if (req.url === '/streamed') {
      // The head and part of the body go out before the close begins; the rest after.
      seen.received++;
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('answered ');
      await gate.passed();
      res.end(req.url);
      return;
    }
    if (req.url === '/slow') {
      seen.received++;
      await gate.passed();
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`answered ${req.url}`);
  });
  return { server, gate, seen };
}

/** The status and body of a GET, or the code of the connection error it met. */
const get = (url: string): Promise<string> =>
  fetch(url).then(
    async (response) => `${response.status} ${await response.text()}`,
    (error: { cause?: { code?: string } }) => `failed ${error.cause?.code ?? String(error)}`,
  );

/**
 * Over one kept-alive TCP connection: a GET of `path` (a chunked answer), and once it is answered
 * in full a GET of `then`; what came back for each, until the server closes the connection.
 */
const keptAliveExchange = (url: string, path: string, then: string): Promise<{ first: string; after: string }> =>
  new Promise((resolve) => {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname);
    let first = '';
    let after = '';
    let answered = false;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      if (answered) {
        after += chunk;
        return;
      }
      first += chunk;
      if (first.endsWith('0\r\n\r\n')) {
        answered = true;
        socket.write(`GET ${then} HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
      }
    });
    // Writing to a connection the server ended may fail: that is no answer either.
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ first, after }));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nConnection: keep-alive\r\n\r\n`);
  });

/** The code of the error a new TCP connection to `url` meets, or `connected`. */
const connectError = (url: string): Promise<string> =>
  new Promise((resolve) => {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname, () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'UNKNOWN'));
  });

/** A drain bound no test reaches: close() resolving at all shows it did not wait for the bound. */
const UNREACHED_DRAIN_MS = 600_000;

describe('the local API server’s close()', () => {
  it('answers the requests in flight, takes no new connection, and resolves once they are answered', async () => {
    const { server, gate, seen } = await serverWithSlowRoute(UNREACHED_DRAIN_MS);
    // A kept-alive connection, idle when the close begins.
    expect(await get(`${server.url}/fast`)).toBe('200 answered /fast');
    const slow = get(`${server.url}/slow`);
    await waitFor(() => seen.received === 1, { what: 'the slow request to arrive' });

    let closed = false;
    const closing = server.close().then(() => {
      closed = true;
    });
    expect(await connectError(server.url)).toBe('ECONNREFUSED');
    expect(closed).toBe(false);

    gate.open();
    expect(await slow).toBe('200 answered /slow');
    // Its connection is closed after the answer, not kept alive until the drain bound cuts it.
    await settlesWithin(closing, 30_000, 'close() once the last request was answered');
  });

  it('closes the connection after its answer also when the head went out before the close began', async () => {
    const { server, gate, seen } = await serverWithSlowRoute(UNREACHED_DRAIN_MS);
    const exchange = keptAliveExchange(server.url, '/streamed', '/fast');
    await waitFor(() => seen.received === 1, { what: 'the streamed request to arrive' });

    const closing = server.close();
    gate.open();
    const { first, after } = await exchange;
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    expect(first).toContain('answered ');
    // The server ended the connection after the answer: a second request on it gets no answer (one left open would).
    expect(after).toBe('');
    await settlesWithin(closing, 30_000, 'close() once the streamed answer was sent');
  });

  it('cuts a request still unanswered after the drain bound, and resolves then', async () => {
    const { server, seen } = await serverWithSlowRoute(200);
    const slow = get(`${server.url}/slow`);
    await waitFor(() => seen.received === 1, { what: 'the slow request to arrive' });

    await server.close();

    expect(await slow).toMatch(/^failed /);
  });
});
