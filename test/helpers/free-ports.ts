import { createServer, type Server } from 'node:net';

/**
 * `count` ports on 127.0.0.1, free and distinct at the time of asking: each is held until all are
 * found, so the system cannot hand out one it has just freed twice (asked for one at a time, two
 * parts of one stack could get the same port and the start be refused for it).
 */
export async function freePorts(count: 2): Promise<[number, number]>;
export async function freePorts(count: 3): Promise<[number, number, number]>;
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', resolve);
      });
    }
    return servers.map((server) => {
      const address = server.address();
      if (typeof address !== 'object' || address === null)
        throw new Error(`no port for a server listening on 127.0.0.1: ${String(address)}`);
      return address.port;
    });
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}
