import { s3BucketNameProblem } from '../aws/s3-bucket-name.js';
import { requireEnv, shownEnvValue as shown } from '../env.js';
import { EnvironmentError } from '../errors.js';
import { RELAY_ENV } from '../event-source.js';
import { processorAggregateTypes } from '../publishing-paths.js';
import { type RelayEnvironment, relayEnvironment } from '../relay/index.js';
import { MAX_PORT, portAllowed } from '../tcp-port.js';
import { ProcessorOptionsError } from './errors.js';
import {
  BUCKET_ALLOWED,
  defaultWorkerId,
  LEASE_TABLE_ALLOWED,
  STREAM_ARN_ALLOWED,
  STREAM_ARN_PATTERN,
  TABLE_NAME_PATTERN,
  WORKER_ID_ALLOWED,
  WORKER_ID_DEFAULT,
} from './processor-rules.js';
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

/**
 * What `processorEnvironment` reads from the deployed processor's environment variables
 * (`PROCESSOR_ENV`, besides the relay's): the options `createProcessor` needs that are not clients.
 */
export interface ProcessorEnvironment extends RelayEnvironment {
  /** From `OUTBOX_STREAM_ARN`. */
  readonly streamArn: string;
  /** From `OUTBOX_LEASE_TABLE`. */
  readonly leaseTableName: string;
  /** Where records given up on go: pass it to `createProcessor` as `onFailure.bucket`. */
  readonly failedBatchBucket: string;
  readonly workerId: string;
  readonly healthPort: number;
  readonly settings: Partial<ProcessorSettings>;
}

/**
 * A whole number from an optional variable: unset gives `undefined` (the default applies); set, it
 * must hold digits only. Empty or blank is refused, not taken for unset: a deployment that meant to
 * set the variable (a template parameter that resolved to nothing) must not run on the default.
 */
function optionalInteger(env: NodeJS.ProcessEnv, variable: string, allowed: string): number | undefined {
  const text = env[variable];
  if (text === undefined) return undefined;
  const unset = '; leave it unset for the default';
  if (text.trim() === '') throw new EnvironmentError(variable, `is not set (got ${shown(text)}); allowed: ${allowed}${unset}`);
  if (!/^\d+$/.test(text)) throw new EnvironmentError(variable, `got ${shown(text)}; allowed: ${allowed}${unset}`);
  return Number(text);
}

/** The worker id given, or one made up; set but blank, it is refused (a blank lease owner). */
function workerIdOf(env: NodeJS.ProcessEnv): string {
  if (env[PROCESSOR_ENV.workerId] === undefined) return defaultWorkerId();
  return requireEnv(PROCESSOR_ENV.workerId, env, `${WORKER_ID_ALLOWED}; leave it unset for ${WORKER_ID_DEFAULT}`);
}

/**
 * Refuses a variable named like the processor's settings that it does not read: a misspelt one
 * (`OUTBOX_PROCESSOR_HANDOFF_TIMEOUT_MS`) would otherwise leave its setting on the default unseen.
 */
function rejectUnknownSettings(env: NodeJS.ProcessEnv): void {
  const known: readonly string[] = Object.values(PROCESSOR_ENV);
  for (const variable of Object.keys(env)) {
    if (variable.startsWith('OUTBOX_PROCESSOR_') && !known.includes(variable)) {
      const allowed = known.filter((name) => name.startsWith('OUTBOX_PROCESSOR_')).join(', ');
      throw new EnvironmentError(variable, `is set, but the processor reads no such variable; allowed: ${allowed}`);
    }
  }
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
 * error is worded under the variable's heading alone, the rule's detail after it: the variable
 * that set the option, or every settings variable set when the option is derived from them or
 * left to its default (an interval from the failover time, an idle maximum below the minimum
 * set), the option then named in the detail.
 */
function checkedSettings(settings: Partial<ProcessorSettings>): Partial<ProcessorSettings> {
  try {
    processorSettings(settings);
    return settings;
  } catch (error) {
    if (!(error instanceof ProcessorOptionsError)) throw error;
    const own = (SETTINGS_VARIABLES as Record<string, string>)[error.field];
    if (own !== undefined && error.field in settings) throw new EnvironmentError(own, error.detail, { cause: error });
    const set = Object.entries(SETTINGS_VARIABLES).filter(([key]) => key in settings);
    const origin = own === undefined ? 'derived from them' : `its default; ${own} is unset`;
    const variables = set.map(([, name]) => name).join(', ');
    throw new EnvironmentError(variables, `${error.field} (${origin}) ${error.detail}`, { cause: error });
  }
}

/** The health endpoint's port when `OUTBOX_PROCESSOR_HEALTH_PORT` is unset. */
export const DEFAULT_HEALTH_PORT = 8080;

/**
 * The health endpoint's port, from `OUTBOX_PROCESSOR_HEALTH_PORT`: unset, the default; set, a port
 * from 1 to 65535 in digits. Empty, blank or anything else is refused with an `EnvironmentError`
 * naming the variable, the value given and what is allowed, never taken for the default: the
 * container's health check must ask where the worker listens, or say why it cannot.
 */
export function healthPortFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const variable = PROCESSOR_ENV.healthPort;
  const text = env[variable];
  if (text === undefined) return DEFAULT_HEALTH_PORT;
  const port = /^\d+$/.test(text) ? Number(text) : 0;
  if (port >= 1 && port <= MAX_PORT) return port;
  const given = text.trim() === '' ? `is not set (got ${shown(text)})` : `got ${shown(text)}`;
  throw new EnvironmentError(variable, `${given}; allowed: ${portAllowed(1)}; leave it unset for the default (${DEFAULT_HEALTH_PORT})`);
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
  rejectUnknownSettings(env);
  const settings: Record<string, number> = {};
  for (const [key, variable] of Object.entries(SETTINGS_VARIABLES)) {
    const value = optionalInteger(env, variable, 'a whole number of milliseconds');
    if (value !== undefined) settings[key] = value;
  }
  const healthPort = healthPortFromEnv(env);
  const relay = relayEnvironment(env);
  if (processorAggregateTypes(relay.config).length === 0) {
    throw new EnvironmentError(
      RELAY_ENV.config,
      'holds a config whose lowLatencyAggregateTypes and handoverAggregateTypes are both empty; allowed: a config with at least one ' +
        'routed aggregate type in either (with none, the processor would publish nothing; the Outbox construct deploys none then)',
    );
  }
  return {
    ...relay,
    streamArn: requireEnv(PROCESSOR_ENV.streamArn, env, STREAM_ARN_ALLOWED, STREAM_ARN_PATTERN),
    leaseTableName: requireEnv(PROCESSOR_ENV.leaseTable, env, LEASE_TABLE_ALLOWED, TABLE_NAME_PATTERN),
    // Required: a deployed processor without an on-failure destination would block a shard on a failing record.
    failedBatchBucket: requireEnv(PROCESSOR_ENV.failedBatchBucket, env, BUCKET_ALLOWED, s3BucketNameProblem),
    workerId: workerIdOf(env),
    healthPort,
    settings: checkedSettings(settings),
  };
}
