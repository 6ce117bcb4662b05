import { showValue } from '../show-value.js';
import { unknownKeys, unknownKeysDetail } from '../unknown-keys.js';
import { ProcessorOptionsError } from './errors.js';

/** Timing and balancing of the stream processor; every field has a default. */
export interface ProcessorSettings {
  /** A lease not renewed for this long is taken over by another worker, at the latest (KCL: 10 s). @default 10000 */
  readonly failoverMs: number;
  /**
   * How often held leases are renewed. With `leaseScanIntervalMs` it must leave a margin:
   * `renewIntervalMs` + 2 × `leaseScanIntervalMs` ≤ 70 % of `failoverMs`.
   * @default failoverMs / 3
   */
  readonly renewIntervalMs: number;
  /**
   * How often the lease table is read to take free, released or expired leases and to balance.
   * Released leases are taken within this time, so it bounds a graceful hand-off.
   * @default min(500, failoverMs / 8)
   */
  readonly leaseScanIntervalMs: number;
  /** How often shards are discovered (also at once whenever a shard ends). @default 10000 */
  readonly shardSyncIntervalMs: number;
  /** Leases stolen from the most loaded worker per scan, towards a fair share. @default 1 */
  readonly maxLeasesToStealAtOnce: number;
  /** First pause after an empty read of a shard; the loop is tight while records flow. @default 10 */
  readonly idleMinDelayMs: number;
  /** Longest pause between reads of an idle shard; the pause doubles up to it. @default 100 */
  readonly idleMaxDelayMs: number;
  /** Records per `GetRecords` call (1–1,000). @default 1000 */
  readonly readLimit: number;
  /** Largest pause before retrying a failed publish or read. @default 2000 */
  readonly retryMaxDelayMs: number;
  /**
   * Once the worker is stopping, how long a page still publishing may go on before it is cut
   * short (its records not yet sent are left to the next holder of the lease), so the checkpoint
   * and the release fit in ECS's `stopTimeout` (120 s) whatever SNS does. Keep it below the task's
   * `stopTimeout` minus a few seconds (`OUTBOX_PROCESSOR_HAND_OFF_TIMEOUT_MS`). @default 90000
   */
  readonly handOffTimeoutMs: number;
}

/** The bounds of `ProcessorSettings.failoverMs`, in ms. */
export const FAILOVER_RANGE_MS = [200, 600_000] as const;
/** The least `ProcessorSettings.renewIntervalMs`, in ms (the most is half the failover time). */
export const MIN_RENEW_INTERVAL_MS = 10;

/** The default of `ProcessorSettings.failoverMs`, in milliseconds (10 s); the CDK construct's default `failover` too. */
export const DEFAULT_FAILOVER_MS = 10_000;

/**
 * How long after a holder's last successful lease write (as issued, by its own clock) another
 * worker may judge the lease expired, at the soonest: `failoverMs` − 2 × `leaseScanIntervalMs`.
 * The holder must neither publish nor count on the lease from then on.
 */
export const leaseExpiresAfterMs = (settings: Pick<ProcessorSettings, 'failoverMs' | 'leaseScanIntervalMs'>): number =>
  settings.failoverMs - 2 * settings.leaseScanIntervalMs;

/**
 * Fills in the defaults and checks the ranges, naming the option, the value and what is allowed.
 *
 * @example
 * ```ts
 * const settings = processorSettings({ failoverMs: 3000 });
 * settings.renewIntervalMs; // 1000
 * ```
 */
export function processorSettings(input: Partial<ProcessorSettings> = {}): ProcessorSettings {
  const known: readonly string[] = [
    'failoverMs',
    'renewIntervalMs',
    'leaseScanIntervalMs',
    'shardSyncIntervalMs',
    'maxLeasesToStealAtOnce',
    'idleMinDelayMs',
    'idleMaxDelayMs',
    'readLimit',
    'retryMaxDelayMs',
    'handOffTimeoutMs',
  ];
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ProcessorOptionsError(
      'settings',
      `got ${showValue(input)}; allowed: an object of settings (${known.join(', ')}), or leave it out for the defaults`,
    );
  }
  const [unknown] = unknownKeys(input, known);
  if (unknown !== undefined) throw new ProcessorOptionsError(unknown, unknownKeysDetail([unknown], known));
  const failoverMs = input.failoverMs ?? DEFAULT_FAILOVER_MS;
  const settings: ProcessorSettings = {
    failoverMs,
    renewIntervalMs: input.renewIntervalMs ?? Math.floor(failoverMs / 3),
    leaseScanIntervalMs: input.leaseScanIntervalMs ?? Math.min(500, Math.floor(failoverMs / 8)),
    shardSyncIntervalMs: input.shardSyncIntervalMs ?? 10_000,
    maxLeasesToStealAtOnce: input.maxLeasesToStealAtOnce ?? 1,
    idleMinDelayMs: input.idleMinDelayMs ?? 10,
    idleMaxDelayMs: input.idleMaxDelayMs ?? 100,
    readLimit: input.readLimit ?? 1000,
    retryMaxDelayMs: input.retryMaxDelayMs ?? 2000,
    handOffTimeoutMs: input.handOffTimeoutMs ?? 90_000,
  };
  const range = (field: keyof ProcessorSettings, min: number, max: number, why = ''): void => {
    const value = settings[field];
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new ProcessorOptionsError(field, `got ${showValue(value)}; allowed: a whole number from ${min} to ${max}${why}`);
    }
  };
  range('failoverMs', ...FAILOVER_RANGE_MS);
  range(
    'renewIntervalMs',
    MIN_RENEW_INTERVAL_MS,
    Math.floor(failoverMs / 2),
    ' (at most half the failover time, so one missed renewal is not fatal)',
  );
  range('leaseScanIntervalMs', 10, Math.floor(failoverMs / 4), ' (at most a quarter of the failover time)');
  // Another worker dates a live owner's write to the end of the read that saw it, up to a scan
  // interval (and the scans' durations) after it was issued, and judges the lease expired
  // failoverMs − 2 × leaseScanIntervalMs after that: a renewal interval plus two scan intervals
  // must leave room for write latency and slow scans within the failover time.
  const livenessBudget = Math.floor(failoverMs * 0.7);
  if (settings.renewIntervalMs + 2 * settings.leaseScanIntervalMs > livenessBudget) {
    const field = input.renewIntervalMs === undefined ? 'leaseScanIntervalMs' : 'renewIntervalMs';
    throw new ProcessorOptionsError(
      field,
      `got renewIntervalMs ${settings.renewIntervalMs} and leaseScanIntervalMs ${settings.leaseScanIntervalMs}; allowed: ` +
        `renewIntervalMs + 2 × leaseScanIntervalMs at most ${livenessBudget} (70 % of failoverMs ${failoverMs}), ` +
        'so that a live owner never looks expired to another worker',
    );
  }
  range('shardSyncIntervalMs', 10, 3_600_000);
  range('maxLeasesToStealAtOnce', 0, 100);
  range('idleMinDelayMs', 0, 60_000);
  range('idleMaxDelayMs', settings.idleMinDelayMs, 60_000, ' (not below idleMinDelayMs)');
  range('readLimit', 1, 1000);
  range('retryMaxDelayMs', 1, 600_000);
  range('handOffTimeoutMs', 1, 3_600_000);
  return Object.freeze(settings);
}
