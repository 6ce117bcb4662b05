import { percentile } from '../../percentile.js';

/** Counters of one subscriber queue's consumer. */
export interface ConsumerCounters {
  /** Messages the consumer acknowledged (handled, or skipped as duplicates). */
  delivered: number;
  /** Deliveries the consumer failed; each comes back after the visibility timeout. */
  failed: number;
}

/** Counters of the load generator. */
export interface LoadCounters {
  sent: number;
  succeeded: number;
  /** 4xx answers: expected now and then (e.g. paying an order cancelled a moment earlier: 409). */
  rejected: number;
  /** 5xx answers and requests that got no answer. */
  errors: number;
  /** Requests not sent because too many were in flight: the API fell behind the rate. */
  skipped: number;
}

/** Lag figures over the most recent deliveries, in ms. */
export interface LagSummary {
  readonly samples: number;
  readonly p50: number;
  readonly p99: number;
}

const LAG_WINDOW = 1000;

/**
 * What the local stack counts as events flow: events committed by the write helper, entries
 * SNS accepted from the relay, deliveries per consumer, and commit→delivery lag (delivery time
 * minus the envelope's `time`, the commit time) over the last {@link LAG_WINDOW} deliveries.
 */
export class LocalStats {
  written = 0;
  published = 0;
  readonly consumers = new Map<string, ConsumerCounters>();
  readonly load: LoadCounters = { sent: 0, succeeded: 0, rejected: 0, errors: 0, skipped: 0 };
  private readonly lags: number[] = [];
  private next = 0;

  consumer(name: string): ConsumerCounters {
    let counters = this.consumers.get(name);
    if (counters === undefined) {
      counters = { delivered: 0, failed: 0 };
      this.consumers.set(name, counters);
    }
    return counters;
  }

  /**
   * Records one delivery's commit→delivery lag; a body without a readable `time` is not counted.
   * A batch message (a topic with `batching`) counts from its first event, the earliest committed.
   */
  recordLag(body: string, deliveredAt: number): number | undefined {
    let time: unknown;
    try {
      const value = JSON.parse(body) as { time?: unknown } | { time?: unknown }[] | null;
      time = (Array.isArray(value) ? value[0] : value)?.time;
    } catch {
      return undefined;
    }
    const committedAt = typeof time === 'string' ? Date.parse(time) : Number.NaN;
    if (!Number.isFinite(committedAt)) return undefined;
    const lag = Math.max(0, deliveredAt - committedAt);
    if (this.lags.length < LAG_WINDOW) this.lags.push(lag);
    else this.lags[this.next] = lag;
    this.next = (this.next + 1) % LAG_WINDOW;
    return lag;
  }

  lag(): LagSummary {
    const sorted = [...this.lags].sort((a, b) => a - b);
    return { samples: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
  }

  get delivered(): number {
    let total = 0;
    for (const counters of this.consumers.values()) total += counters.delivered;
    return total;
  }
}
