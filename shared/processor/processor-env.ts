import { hostname } from 'node:os';
import { requireEnv } from '../config.js';
import { EnvironmentError } from '../errors.js';
import { type RelayEnvironment, relayEnvironment } from '../relay/index.js';
import { ProcessorOptionsError } from './errors.js';
import { type ProcessorSettings, processorSettings } from './settings.js';

/** Environment variables of the stream processor, besides the relay's (`RELAY_ENV`). */
export const PROCESSOR_ENV = Object.freeze({
  streamArn: 'OUTBOX_STREAM_ARN',
  leaseTable: 'OUTBOX_LEASE_TABLE',
  /** The bucket records given up on are written to (the processor's on-failure destination). */
  failedBatchBucket: 'OUTBOX_FAILED_BATCH_BUCKET',
  /** @default the host name, the process id and a random suffix */
  workerId: 'OUTBOX_PROCESSOR_WORKER_ID',
  /** @default 10000 */
  failoverMs: 'OUTBOX_PROCESSOR_FAILOVER_MS',
  /** @default 10 */
  idleMinDelayMs: 'OUTBOX_PROCESSOR_IDLE_MIN_DELAY_MS',
  /** @default 100 */
  idleMaxDelayMs: 'OUTBOX_PROCESSOR_IDLE_MAX_DELAY_MS',
  /**
   * How long into a stop a page may still publish before it is cut short and the leases are
   * handed over (`handOffTimeoutMs`): keep it below the task's `stopTimeout` minus a few seconds.
   * @default 90000
   */
  handOffTimeoutMs: 'OUTBOX_PROCESSOR_HAND_OFF_TIMEOUT_MS',
  /** Port of the health endpoint (1–65535; the container's health check asks it there). @default 8080 */
  healthPort: 'OUTBOX_PROCESSOR_HEALTH_PORT',
});

export interface ProcessorEnvironment extends RelayEnvironment {
  readonly streamArn: string;
  readonly leaseTableName: string;
  /** Where records given up on go: pass it to `createProcessor` as `onFailure.bucket`. */
  readonly failedBatchBucket: string;
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

/** The settings read from the environment, by the variable that sets each. */
const SETTINGS_VARIABLES = {
  failoverMs: PROCESSOR_ENV.failoverMs,
  idleMinDelayMs: PROCESSOR_ENV.idleMinDelayMs,
  idleMaxDelayMs: PROCESSOR_ENV.idleMaxDelayMs,
  handOffTimeoutMs: PROCESSOR_ENV.handOffTimeoutMs,
} as const;

/**
 * Checks the settings the environment gave as the worker will ({@link processorSettings}); an
 * error names the variable that set the option, or every settings variable set when the option
 * is derived from them (an interval from the failover time, idle bounds that cross).
 */
function checkedSettings(settings: Partial<ProcessorSettings>): Partial<ProcessorSettings> {
  try {
    processorSettings(settings);
    return settings;
  } catch (error) {
    if (!(error instanceof ProcessorOptionsError)) throw error;
    const own = (SETTINGS_VARIABLES as Record<string, string>)[error.field];
    const set = Object.entries(SETTINGS_VARIABLES).filter(([key]) => key in settings);
    const variable = own !== undefined && error.field in settings ? own : set.map(([, name]) => name).join(', ');
    throw new EnvironmentError(variable, error.message, { cause: error });
  }
}

/**
 * Reads the processor's environment once, at start-up; a missing, malformed or out-of-range
 * variable fails with its name, the value given and what is allowed.
 *
 * @example
 * ```ts
 * const env = processorEnvironment();
 * ```
 */
export function processorEnvironment(env: NodeJS.ProcessEnv = process.env): ProcessorEnvironment {
  const settings: Record<string, number> = {};
  for (const [key, variable] of Object.entries(SETTINGS_VARIABLES)) {
    const value = optionalInteger(env, variable);
    if (value !== undefined) settings[key] = value;
  }
  const healthPort = optionalInteger(env, PROCESSOR_ENV.healthPort) ?? 8080;
  if (healthPort < 1 || healthPort > 65_535) {
    throw new EnvironmentError(
      PROCESSOR_ENV.healthPort,
      `got ${JSON.stringify(env[PROCESSOR_ENV.healthPort])}; allowed: a port from 1 to 65535`,
    );
  }
  return {
    ...relayEnvironment(env),
    streamArn: requireEnv(PROCESSOR_ENV.streamArn, env),
    leaseTableName: requireEnv(PROCESSOR_ENV.leaseTable, env),
    // Required: a deployed processor without an on-failure destination would block a shard on a failing record.
    failedBatchBucket: requireEnv(PROCESSOR_ENV.failedBatchBucket, env),
    workerId: env[PROCESSOR_ENV.workerId] || `${hostname()}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
    healthPort,
    settings: checkedSettings(settings),
  };
}
