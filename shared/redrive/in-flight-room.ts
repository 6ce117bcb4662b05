import type { SQSClient } from '@aws-sdk/client-sqs';
import { errorName } from '../aws/error-name.js';
import { counted } from '../plural.js';
import { type InFlightHolding, RedriveInFlightLimitError, RedriveOptionsError } from './errors.js';
import { IN_FLIGHT_LIMIT, type QueueCounts, queueCounts } from './queue-counts.js';

/**
 * How near SQS's limit a run's messages in flight (its own and others') must be for an empty
 * receive to be asked about: the limit is approximate, and a long poll past it comes back empty.
 */
const NEAR_LIMIT = 0.95;

/**
 * What a run that holds every message it receives (to put them in order before publishing any)
 * may take of a queue, by SQS's in-flight limit: nothing is received when the queue's counts say
 * it would hold more. A run that holds only the messages it leaves in the queue (`holding`
 * `kept`) is told, the same way, when SQS stops handing out messages for the limit. Past the limit SQS hands out no more, so such a run would otherwise either
 * stop part way or, as a long poll past it comes back empty, take the part it holds for the whole
 * queue and publish it out of order with the rest.
 *
 * @example
 * ```ts
 * const room = new InFlightRoom(sqs, queueUrl, await queueCounts(sqs, queueUrl), isFifoQueueUrl(queueUrl));
 * room.check(options.maxMessages); // throws RedriveOptionsError (maxMessages) when the queue does not fit
 * ```
 */
export class InFlightRoom {
  private readonly limit: number;

  /** `holding`: why the run holds what it receives, for the error it stops with. */
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    private readonly before: QueueCounts,
    private readonly fifo: boolean,
    private readonly holding: InFlightHolding = 'ordered',
  ) {
    this.limit = fifo ? IN_FLIGHT_LIMIT.fifo : IN_FLIGHT_LIMIT.standard;
  }

  private error(what: string, held: number, options?: ErrorOptions): RedriveInFlightLimitError {
    const { limit, fifo, holding } = this;
    return new RedriveInFlightLimitError({ what, held, others: this.before.inFlight, limit, fifo, holding }, options);
  }

  /** Throws a {@link RedriveOptionsError} on `maxMessages` when the messages to receive would not fit in flight. */
  check(maxMessages: number | undefined): void {
    const { visible, delayed, inFlight } = this.before;
    const waiting = visible + delayed;
    const wanted = maxMessages === undefined ? waiting : Math.min(waiting, maxMessages);
    const room = this.limit - inFlight;
    if (wanted <= room) return;
    const given = maxMessages === undefined ? 'not given (the whole queue)' : `got ${maxMessages}`;
    const allowed =
      room > 0
        ? `at most ${room} (the limit less those in flight), in runs of that many or fewer; each run keeps stream order among the records it receives`
        : 'none until the messages in flight are deleted or visible again';
    throw new RedriveOptionsError(
      'maxMessages',
      `${given}, and the queue holds about ${counted(waiting, 'message')} to receive, with ${inFlight} in flight (SQS's approximate counts); this redrive holds every record it receives in flight until it has put them all in stream order, and SQS keeps at most about ${this.limit.toLocaleString('en')} of the queue in flight; allowed: ${allowed}`,
    );
  }

  /** The error to stop with when a receive failed for SQS's in-flight limit (`OverLimit`), or `undefined`. */
  refusal(error: unknown, held: number): RedriveInFlightLimitError | undefined {
    if (errorName(error) !== 'OverLimit') return undefined;
    return this.error('a receive failed with OverLimit', held, { cause: error });
  }

  /**
   * After an empty receive, the error to stop with when it came back empty for SQS's in-flight limit,
   * or `undefined` when the queue was received whole. Messages still visible while the run and
   * others hold nearly the limit say it was the limit; on a FIFO queue only the limit itself does
   * (by the counts before the run, or now), as below it a receive also comes back empty when every
   * visible message waits behind one in flight in its message group.
   */
  async emptyAtLimit(held: number): Promise<RedriveInFlightLimitError | undefined> {
    if (held + this.before.inFlight < this.limit * NEAR_LIMIT) return undefined;
    const now = await queueCounts(this.sqs, this.queueUrl);
    if (now.visible === 0) return undefined;
    // The count now takes in messages others received during the run, which the limit counts too.
    if (this.fifo && Math.max(held + this.before.inFlight, now.inFlight) < this.limit) return undefined;
    return this.error(`a receive came back empty while about ${now.visible} were still visible`, held);
  }
}

/** How a drain ended, for {@link partialReadNotes}. */
export interface DrainEnd {
  readonly dryRun: boolean;
  readonly fifo: boolean;
  /** Messages read (counted), and about how many the queue held before the run. */
  readonly processed: number;
  readonly before: number;
  readonly maxMessages: number | undefined;
  /** Messages held when the run ended (left in the queue, or in hand). */
  readonly kept: number;
  /** Ended by the caller's signal. */
  readonly interrupted: boolean;
  /** What stopped the run, when an error did. */
  readonly stoppedBy: { readonly error: unknown } | undefined;
}

/**
 * The note a drain's summary needs when the run read only part of the queue for SQS's in-flight
 * limit: a dry run (standard queue) that read fewer than the queue held, not for `maxMessages`
 * (its long polls past the limit come back empty, as if the queue were read whole); a run stopped
 * with a {@link RedriveInFlightLimitError} while holding the messages it leaves in the queue.
 */
export function partialReadNotes(end: DrainEnd): string[] {
  const { dryRun, fifo, processed, before, maxMessages, kept, interrupted, stoppedBy } = end;
  if (stoppedBy?.error instanceof RedriveInFlightLimitError && stoppedBy.error.holding === 'kept') {
    return [
      `read ${processed} of about ${before}: SQS handed out no more while the run held ${kept} it leaves in the queue (its in-flight limit); the rest of the queue was not read: run it again to read further`,
    ];
  }
  if (!dryRun || fifo || interrupted || stoppedBy !== undefined || processed >= (maxMessages ?? before) || processed >= before) return [];
  return [
    `read ${processed} of about ${before}: the rest were in flight with another reader, delayed, or not handed out because SQS keeps at most about ${IN_FLIGHT_LIMIT.standard.toLocaleString('en')} of a standard queue in flight, and a dry run holds every message it reads; the counts cover those read`,
  ];
}
