import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { showValue } from '../show-value.js';
import { MAX_PORT, portAllowed } from '../tcp-port.js';
import { ProcessorOptionsError } from './errors.js';
import { processorSettings } from './settings.js';
import { monotonicNow } from './worker-clock.js';
import type { WorkerStatus } from './worker-types.js';

/**
 * How long a start may retry and still be healthy. A start retries transient failures without end
 * (throttling passes), but one that never gets through (no route to DynamoDB, say) must end in a
 * replaced task, not one that looks alive and publishes nothing.
 */
export const STARTING_HEALTHY_MS = 300_000;

/**
 * Healthy while starting, for at most {@link STARTING_HEALTHY_MS} after `startingSince`, while
 * running with the lease table read within the failover time, and while stopping. `now` and
 * `startingSince` are on the worker's monotonic clock, as `status.lastScanAt` is (`monotonicNow`):
 * a wall clock stepped by NTP makes no stuck worker look healthy, nor a healthy one stuck.
 *
 * A stopping worker scans no more, and its hand-off may take `handOffTimeoutMs` (90 s) and its last
 * checkpoints: judged as a running one, it would turn unhealthy one failover time into the stop,
 * and ECS would count the task unhealthy after its health check's retries (30 s), during every
 * deployment and scale-in. That would gain nothing: ECS is already stopping the task (it sent the
 * SIGTERM) and kills it once its `stopTimeout` has passed, however the health check answers; the
 * hand-off itself is bounded by `handOffTimeoutMs`. Stopped, the worker is unhealthy: the process is exiting.
 */
export function isHealthy(status: WorkerStatus, failoverMs: number, now = monotonicNow(), startingSince = now): boolean {
  if (status.state === 'starting') return now - startingSince <= STARTING_HEALTHY_MS;
  if (status.state === 'stopping') return true;
  return status.state === 'running' && now - status.lastScanAt <= failoverMs;
}

/**
 * The container's health endpoint: `GET /health` answers 200 with the worker's status while it
 * is healthy ({@link isHealthy}: starting, for a while; running and reading the lease table;
 * stopping), 503 otherwise (ECS then replaces the task). Started before the worker's start, whose
 * time counts from here.
 *
 * @example
 * ```ts
 * const health = await startHealthServer(() => worker.status(), worker.settings.failoverMs, 8080);
 * ```
 */
export async function startHealthServer(
  status: () => WorkerStatus,
  failoverMs: number,
  port: number,
): Promise<{ readonly port: number; close(): Promise<void> }> {
  // The settings' rule: a NaN or negative failover time would make every answer 503, and ECS replace the task again and again.
  processorSettings({ failoverMs });
  // Else the first request would throw in the server's handler, and take the process down.
  if (typeof status !== 'function') {
    throw new ProcessorOptionsError(
      'status',
      `got ${showValue(status)}; allowed: a function giving the worker's status, () => worker.status()`,
    );
  }
  if (!Number.isInteger(port) || port < 0 || port > MAX_PORT) {
    throw new ProcessorOptionsError('port', `got ${showValue(port)}; allowed: ${portAllowed(0)}`);
  }
  const startingSince = monotonicNow();
  const server: Server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url !== '/health') {
      response.writeHead(404).end();
      return;
    }
    const current = status();
    const healthy = isHealthy(current, failoverMs, monotonicNow(), startingSince);
    response.writeHead(healthy ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ healthy, ...current }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
