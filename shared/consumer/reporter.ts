import type { OutboxEnvelope } from '../envelope.js';
import { parseEventTime } from '../event-time.js';
import { isDimensionValue, OTHER_BUCKET } from '../metric-dimension.js';
import type { SequenceObservation } from './sequence-tracker.js';
import type { ConsumerLogger, ConsumerMetrics, MessageOutcome } from './types.js';
import { logSafely } from './unexpected.js';

/**
 * The consumer's lag metric: now − the envelope's `time` (set by the write helper at commit), in
 * ms, when its handler has run; per batch, the maximum of each event type, each on an EMF line
 * of its own with the extra {@link CONSUMER_LAG_DIMENSION} dimension.
 */
export const CONSUMER_LAG_METRIC = 'HandledLag';
/** The dimension of {@link CONSUMER_LAG_METRIC}: an event type the consumer has a handler for (its handlers bound the set). */
export const CONSUMER_LAG_DIMENSION = 'eventType';
/**
 * The value of {@link CONSUMER_LAG_DIMENSION} for a type outside the consumer's handlers (none
 * reaches the metric today: it bounds the set), and for a handled type CloudWatch cannot take as
 * a dimension value (not printable ASCII).
 */
export const OTHER_EVENT_TYPE = OTHER_BUCKET;

/** Counts and logs each message's outcome and keeps each event type's lag for the batch's metrics. */
export class Reporter {
  readonly #consumer: string;
  readonly #logger: ConsumerLogger;
  readonly #metrics: ConsumerMetrics;
  readonly #types: ReadonlySet<string>;
  readonly #now: () => number;
  readonly #lagByType = new Map<string, number>();
  #pending = 0;
  /** The metrics sink threw: messages that its error fails are not counted on it again. */
  #sinkFailed = false;

  constructor(consumer: string, logger: ConsumerLogger, metrics: ConsumerMetrics, types: ReadonlySet<string>, now: () => number) {
    this.#consumer = consumer;
    this.#logger = logger;
    this.#metrics = metrics;
    // A type CloudWatch refuses as a dimension value would make the batch's whole EMF line invalid.
    this.#types = new Set([...types].filter(isDimensionValue));
    this.#now = now;
  }

  handled(envelope: OutboxEnvelope): void {
    // Not Date.parse, which reads "5" as a year and a time without an offset in the machine's zone: such a lag would be made up.
    const committed = parseEventTime(envelope.time);
    if (committed === undefined) return;
    const type = this.#types.has(envelope.type) ? envelope.type : OTHER_EVENT_TYPE;
    const lag = Math.max(0, this.#now() - committed);
    this.#lagByType.set(type, Math.max(this.#lagByType.get(type) ?? 0, lag));
  }

  #count(name: string, value = 1): void {
    try {
      this.#metrics.addMetric(name, 'Count', value);
    } catch (error) {
      this.#sinkFailed = true;
      throw error;
    }
    this.#pending++;
  }

  /**
   * Counts messages that an unexpected error failed as `FailedMessages`, in one call; none when
   * the metrics sink has thrown in this batch, as it may be what failed them. Never throws: an
   * error of the sink here is logged.
   */
  failedUnexpectedly(messages: number): void {
    if (messages === 0 || this.#sinkFailed) return;
    try {
      this.#count('FailedMessages', messages);
    } catch (error) {
      logSafely(this.#logger, 'error', 'Counting the messages an unexpected error failed failed too', { consumer: this.#consumer, error });
    }
  }

  outcome(outcome: MessageOutcome): void {
    const consumer = this.#consumer;
    switch (outcome.status) {
      case 'processed':
        this.#count('EventsProcessed');
        return;
      case 'duplicate':
        this.#logger.info('Duplicate event acknowledged and skipped', {
          consumer,
          messageId: outcome.messageId,
          eventId: outcome.eventId,
          type: outcome.type,
        });
        this.#count('DuplicateEvents');
        return;
      case 'rejected':
        // Counted even when the logger throws: an error of logging leaves a rejection rejected, so nothing else counts it.
        try {
          this.#logger.error('Message rejected; it goes to the DLQ by the queue redrive policy', {
            consumer,
            messageId: outcome.messageId,
            code: outcome.error.code,
            reason: outcome.error.message,
          });
        } finally {
          this.#count('RejectedMessages');
        }
        return;
      case 'failed':
        this.#logger.error('Event handling failed; the message will be retried', {
          consumer,
          messageId: outcome.messageId,
          eventId: outcome.eventId,
          type: outcome.type,
          error: outcome.error,
        });
        this.#count('FailedMessages');
        return;
      case 'skipped':
        // As a rejection: an error of logging leaves the message skipped.
        try {
          this.#logger.warn('Message not processed: an earlier message of its FIFO group failed', {
            consumer,
            messageId: outcome.messageId,
            failedMessageId: outcome.failedMessageId,
          });
        } finally {
          this.#count('SkippedMessages');
        }
        return;
    }
  }

  /** A replayed event acknowledged: counted apart, and kept out of `HandledLag` and the sequence metrics. */
  replayed(): void {
    this.#count('ReplayedEvents');
  }

  sequence(envelope: OutboxEnvelope, observation: SequenceObservation): void {
    if (observation.status !== 'gap' && observation.status !== 'out-of-order') return;
    const detail = {
      consumer: this.#consumer,
      eventId: envelope.id,
      type: envelope.type,
      aggregateType: envelope.aggregatetype,
      aggregateId: envelope.subject,
      received: observation.received,
      last: observation.last,
      ...(observation.status === 'gap' ? { missing: observation.missing } : {}),
    };
    if (observation.status === 'gap') {
      this.#logger.warn('Sequence gap: events of this aggregate before this one have not been handled', detail);
      this.#count('SequenceGaps');
    } else {
      this.#logger.warn('Out-of-order event: it is not after the last handled event of its aggregate', detail);
      this.#count('SequenceOutOfOrder');
    }
  }

  trackingFailed(envelope: OutboxEnvelope, error: unknown): void {
    this.#logger.error('Sequence tracking failed; the event itself was handled', { consumer: this.#consumer, eventId: envelope.id, error });
    this.#count('SequenceTrackingErrors');
  }

  /** Publishes the batch's metrics. Never throws: the batch's outcomes are decided, and an error of the sink is logged. */
  flush(): void {
    try {
      this.#publish();
    } catch (error) {
      logSafely(this.#logger, 'error', "Publishing the batch's metrics failed", { consumer: this.#consumer, error });
    }
    this.#pending = 0;
    this.#lagByType.clear();
  }

  #publish(): void {
    if (this.#pending > 0) this.#metrics.publishStoredMetrics?.();
    const metrics = this.#metrics;
    if (metrics.addDimension !== undefined && metrics.publishStoredMetrics !== undefined) {
      // A line per type: the dimension set differs from the counts' line above.
      for (const [type, lag] of this.#lagByType) {
        metrics.addDimension(CONSUMER_LAG_DIMENSION, type);
        metrics.addMetric(CONSUMER_LAG_METRIC, 'Milliseconds', lag);
        metrics.publishStoredMetrics();
      }
    }
  }
}
