import type { Server } from 'node:http';
import { LocalStackError } from '../errors.js';
import { portRefusal } from './ports.js';

/**
 * Binds an HTTP server, resolving with the port it got (useful with port 0). A taken port is a
 * {@link LocalStackError} `PORT_IN_USE` that names the port and what it was for.
 */
export function listen(server: Server, port: number, host: string, purpose: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES') {
        reject(new LocalStackError('PORT_IN_USE', portRefusal(error.code, port, purpose), { cause: error }));
      } else reject(error);
    };
    const onListening = () => {
      server.off('error', onError);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}
