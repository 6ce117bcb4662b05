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

describe('the local API server’s close()', () => {
  it('answers the requests in flight, takes no new connection, and resolves once they are answered', async () => {
    const { server, gate, seen } = await serverWithSlowRoute();
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
    await settlesWithin(closing, 2000, 'close() once the last request was answered');
  });

  it('cuts a request still unanswered after the drain bound, and resolves then', async () => {
    const { server, seen } = await serverWithSlowRoute(200);
    const slow = get(`${server.url}/slow`);
    await waitFor(() => seen.received === 1, { what: 'the slow request to arrive' });

    await settlesWithin(server.close(), 3000, 'close() at the drain bound');

    expect(await slow).toMatch(/^failed /);
  });
});
