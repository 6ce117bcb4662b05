import { hostname } from 'node:os';
import { requireEnv } from '../config.js';
import { EnvironmentError } from '../errors.js';
import { type RelayEnvironment, relayEnvironment } from '../relay/index.js';
import type { ProcessorSettings } from './settings.js';

/** Environment variables of the stream processor, besides the relay's (`RELAY_ENV`). */
export const PROCESSOR_ENV = Object.freeze({
  streamArn: 'OUTBOX_STREAM_ARN',
  leaseTable: 'OUTBOX_LEASE_TABLE',
  /** @default the host name, the process id and a random suffix */
  workerId: 'OUTBOX_PROCESSOR_WORKER_ID',
  /** @default 10000 */
  failoverMs: 'OUTBOX_PROCESSOR_FAILOVER_MS',
  /** @default 10 */
  idleMinDelayMs: 'OUTBOX_PROCESSOR_IDLE_MIN_DELAY_MS',
  /** @default 100 */
  idleMaxDelayMs: 'OUTBOX_PROCESSOR_IDLE_MAX_DELAY_MS',
  /** Port of the health endpoint. @default 8080 */
  healthPort: 'OUTBOX_PROCESSOR_HEALTH_PORT',
});

export interface ProcessorEnvironment extends RelayEnvironment {
  readonly streamArn: string;
  readonly leaseTableName: string;
  readonly workerId: string;
  readonly healthPort: number;
  readonly settings: Partial<ProcessorSettings>;
}

function optionalInteger(env: NodeJS.ProcessEnv, variable: string): number | undefined {
  const text = env[variable];
  if (text === undefined || text === '') return undefined;
  if (!/^\d+$/.test(text)) throw new EnvironmentError(variable, `got ${JSON.stringify(text)}; allowed: a whole number`);
  return Number(text);
}

/**
 * Reads the processor's environment once, at start-up; a missing or malformed variable fails
 * with its name. Settings are range-checked when the worker is built.
 *
 * @example
 * ```ts
 * const env = processorEnvironment();
 * ```
 */
export function processorEnvironment(env: NodeJS.ProcessEnv = process.env): ProcessorEnvironment {
  const settings: Record<string, number> = {};
  for (const key of ['failoverMs', 'idleMinDelayMs', 'idleMaxDelayMs'] as const) {
    const value = optionalInteger(env, PROCESSOR_ENV[key]);
    if (value !== undefined) settings[key] = value;
  }
  return {
    ...relayEnvironment(env),
    streamArn: requireEnv(PROCESSOR_ENV.streamArn, env),
    leaseTableName: requireEnv(PROCESSOR_ENV.leaseTable, env),
    workerId: env[PROCESSOR_ENV.workerId] || `${hostname()}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
    healthPort: optionalInteger(env, PROCESSOR_ENV.healthPort) ?? 8080,
    settings,
  };
}
