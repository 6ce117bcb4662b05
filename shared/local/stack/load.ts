import { LocalStackError } from '../errors.js';
import type { LoadCounters } from './stats.js';

/** One request of a load scenario; resolves with the HTTP status it got. */
export type LoadStep = () => Promise<number>;

export interface LoadOptions {
  /** Requests per second, from {@link MIN_LOAD_RATE} up to {@link MAX_LOAD_RATE}. */
  readonly rate: number;
  readonly step: LoadStep;
  readonly counters: LoadCounters;
  /** Requests in flight at most; when the API falls behind, the generator skips rather than piling up. @default 64 */
  readonly maxInFlight?: number;
}

/** A running load generator. */
export interface Load {
  /** Stops sending and waits for the requests in flight. */
  stop(): Promise<void>;
}

export const MAX_LOAD_RATE = 1000;
/** The slowest load: one request every ten seconds (slower sends next to nothing, and the view would show it as 1e-10/s). */
export const MIN_LOAD_RATE = 0.1;
const TICK_MS = 10;

/** Checks a load rate, failing with what was given and what is allowed. */
export function checkLoadRate(rate: number, given: string = String(rate), label = 'load rate'): number {
  if (!Number.isFinite(rate) || rate < MIN_LOAD_RATE || rate > MAX_LOAD_RATE) {
    throw new LocalStackError(
      'INVALID_OPTION',
      `${label} ${JSON.stringify(given)} is not a rate; allowed: a number of requests per second from ${MIN_LOAD_RATE} up to ${MAX_LOAD_RATE}`,
    );
  }
  return rate;
}

/**
 * Sends `rate` requests per second on an even schedule, counting answers as succeeded (2xx),
 * rejected (4xx) or errors (5xx or no answer).
 *
 * @example
 * ```ts
 * const load = startLoad({ rate: 20, step: () => fetch(url, { method: 'POST', body }).then((r) => r.status), counters });
 * await load.stop();
 * ```
 */
export function startLoad(options: LoadOptions): Load {
  const rate = checkLoadRate(options.rate);
  const maxInFlight = options.maxInFlight ?? 64;
  const { counters } = options;
  const inFlight = new Set<Promise<void>>();
  const started = Date.now();
  let scheduled = 0;
  const fire = () => {
    counters.sent++;
    const request = options
      .step()
      .then(
        (status) => {
          if (status >= 200 && status < 300) counters.succeeded++;
          else if (status >= 400 && status < 500) counters.rejected++;
          else counters.errors++;
        },
        () => {
          counters.errors++;
        },
      )
      .finally(() => inFlight.delete(request));
    inFlight.add(request);
  };
  const timer = setInterval(() => {
    const due = Math.floor(((Date.now() - started) / 1000) * rate);
    while (scheduled < due) {
      scheduled++;
      if (inFlight.size < maxInFlight) fire();
      else counters.skipped++;
    }
  }, TICK_MS);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(inFlight);
    },
  };
}
