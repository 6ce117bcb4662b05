import { parseEventTime } from '../../event-time.js';
import { OTHER_BUCKET } from '../../metric-dimension.js';
import { percentile } from '../../percentile.js';
import { HandlerActivity } from './handler-activity.js';

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

/** Event types the live view gives a lag row of their own, in first-delivered order; later ones share {@link OTHER_TYPES}. */
export const MAX_LAG_TYPES = 12;
/** The row of the event types past {@link MAX_LAG_TYPES}. */
export const OTHER_TYPES = OTHER_BUCKET;

/** The last {@link LAG_WINDOW} lags of one kind, overwritten in a ring. */
class LagWindow {
  private readonly lags: number[] = [];
  private next = 0;

  add(lag: number): void {
    if (this.lags.length < LAG_WINDOW) this.lags.push(lag);
    else this.lags[this.next] = lag;
    this.next = (this.next + 1) % LAG_WINDOW;
  }

  summary(): LagSummary {
    const sorted = [...this.lags].sort((a, b) => a - b);
    return { samples: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
  }
}

/** One event type's commit→delivery lag, for the live view. */
export interface TypeLag {
  readonly type: string;
  readonly lag: LagSummary;
}

/** The commit time and type of each event of a body (an envelope, or a batch message's array of them). */
function eventsOf(body: string): { readonly time: unknown; readonly type: unknown }[] | undefined {
  try {
    const value = JSON.parse(body) as unknown;
    const events = Array.isArray(value) ? value : [value];
    return events.map((event: unknown) => {
      const { time, type } = typeof event === 'object' && event !== null ? (event as { time?: unknown; type?: unknown }) : {};
      return { time, type };
    });
  } catch {
    return undefined;
  }
}

/**
 * What the local stack counts as events flow: events committed by the write helper, entries
 * SNS accepted from the relay, deliveries per consumer, and commit→delivery lag (delivery time
 * minus the envelope's `time`, the commit time) over the last {@link LAG_WINDOW} deliveries;
 * and the subscribers' handlers' invocations, running and started.
 */
export class LocalStats {
  written = 0;
  published = 0;
  readonly consumers = new Map<string, ConsumerCounters>();
  readonly handlers = new HandlerActivity();
  readonly load: LoadCounters = { sent: 0, succeeded: 0, rejected: 0, errors: 0, skipped: 0 };
  private readonly lags = new LagWindow();
  private readonly lagsByType = new Map<string, LagWindow>();

  consumer(name: string): ConsumerCounters {
    let counters = this.consumers.get(name);
    if (counters === undefined) {
      counters = { delivered: 0, failed: 0 };
      this.consumers.set(name, counters);
    }
    return counters;
  }

  /**
   * Records one delivery's commit→delivery lag; a body without an RFC 3339 `time` is not counted
   * (a lag from a made-up instant would skew the percentiles).
   * A batch message (a topic with `batching`) counts from its first event, the earliest committed.
   */
  recordLag(body: string, deliveredAt: number): number | undefined {
    const events = eventsOf(body);
    const lagOf = (time: unknown): number | undefined => {
      const committedAt = typeof time === 'string' ? parseEventTime(time) : undefined;
      return committedAt === undefined ? undefined : Math.max(0, deliveredAt - committedAt);
    };
    const lag = lagOf(events?.[0]?.time);
    if (lag === undefined) return undefined;
    this.lags.add(lag);
    // Per type, each event of a batch message counts with its own commit time.
    for (const event of events ?? []) {
      const eventLag = lagOf(event.time);
      if (eventLag !== undefined && typeof event.type === 'string') this.typeWindow(event.type).add(eventLag);
    }
    return lag;
  }

  /** The window of `type`; past {@link MAX_LAG_TYPES} types, the shared one of {@link OTHER_TYPES}, so the view stays bounded. */
  private typeWindow(type: string): LagWindow {
    const own = this.lagsByType.get(type);
    if (own !== undefined) return own;
    const ownTypes = [...this.lagsByType.keys()].filter((t) => t !== OTHER_TYPES).length;
    const key = ownTypes < MAX_LAG_TYPES ? type : OTHER_TYPES;
    let window = this.lagsByType.get(key);
    if (window === undefined) {
      window = new LagWindow();
      this.lagsByType.set(key, window);
    }
    return window;
  }

  lag(): LagSummary {
    return this.lags.summary();
  }

  /** Commit→delivery lag per event type over its last deliveries, in first-delivered order ({@link OTHER_TYPES} last). */
  lagByType(): TypeLag[] {
    const rows = [...this.lagsByType].map(([type, window]) => ({ type, lag: window.summary() }));
    return [...rows.filter((r) => r.type !== OTHER_TYPES), ...rows.filter((r) => r.type === OTHER_TYPES)];
  }

  get delivered(): number {
    let total = 0;
    for (const counters of this.consumers.values()) total += counters.delivered;
    return total;
  }
}
