import type { BackoffOptions } from '../backoff.js';
import type { DeadLetterClient, DeadLetterFields } from '../relay/dead-letter-sender.js';
import { DeadLetterSender } from '../relay/dead-letter-sender.js';
import type { RedriveSummary } from './types.js';

/** The relay DLQ an on-failure redrive dead-letters to what the relay would have dead-lettered. */
export interface RelayDeadLetterQueue {
  /** The relay DLQ's URL (the relay's `OUTBOX_RELAY_DLQ_URL`): a standard queue. */
  readonly queueUrl: string;
  /** An `SQSClient`, or anything that sends `SendMessage` like one. */
  readonly sqs: DeadLetterClient;
}

/** One dead letter of a record, in its aggregate's place (`<aggregateType>#<aggregateId>`). */
export interface RecordDeadLetter {
  readonly aggregate: string;
  readonly fields: DeadLetterFields;
}

/** What a record's reason says when it holds what the relay dead-letters and no relay DLQ was given. */
export const NO_RELAY_DLQ =
  'the relay dead-letters it; give the relay DLQ (--relay-dlq-url, default $OUTBOX_RELAY_DLQ_URL; deadLetterQueue in the API) to dead-letter it so and move the record';

/**
 * Sends the dead letters of an on-failure redrive to the relay DLQ, in the relay's format (its
 * {@link DeadLetterSender}, same retries of a passing failure), and counts them by reason for the summary.
 */
export class OnFailureDeadLetters {
  private readonly sender: DeadLetterSender;
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly queue: RelayDeadLetterQueue,
    retry: BackoffOptions,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.sender = new DeadLetterSender(queue.sqs, queue.queueUrl, retry);
  }

  /** `undefined` once the dead letter is in the DLQ, else why not. */
  async send(fields: DeadLetterFields): Promise<string | undefined> {
    const result = await this.sender.send(fields, this.signal === undefined ? {} : { signal: this.signal });
    if (result.status !== 'sent') return result.detail;
    this.counts.set(fields.reason, (this.counts.get(fields.reason) ?? 0) + 1);
    return undefined;
  }

  /**
   * Sends a record's own dead letters (malformed slots, unrouted events) in order; one not sent
   * blocks its aggregate for the run, so no later event of it is published ahead of it. The first
   * reason one was not sent, or `undefined` when all were.
   */
  async sendAll(letters: readonly RecordDeadLetter[], blocked: Map<string, string>): Promise<string | undefined> {
    let problem: string | undefined;
    for (const { aggregate, fields } of letters) {
      const blocker = blocked.get(aggregate);
      const unsent = blocker !== undefined ? `an earlier event ${blocker} of aggregate ${aggregate} failed` : await this.send(fields);
      if (unsent === undefined) continue;
      if (!blocked.has(aggregate)) blocked.set(aggregate, fields.eventId ?? `(${fields.reason} record)`);
      problem ??= `${fields.reason} ${fields.eventId ?? aggregate} not dead-lettered: ${unsent}`;
    }
    return problem;
  }

  /** Dead letters sent so far, of every reason. */
  get sent(): number {
    return [...this.counts.values()].reduce((a, b) => a + b, 0);
  }

  /**
   * What the summary of a run says of its dead letters: how many were sent (`deadLettered`; a dry
   * run sends none and says nothing) and, when any were, a note of them by reason.
   */
  summary(dryRun: boolean | undefined): Pick<RedriveSummary, 'deadLettered'> & { readonly note?: string } {
    if (dryRun === true) return {};
    const note = this.note();
    return { deadLettered: this.sent, ...(note === undefined ? {} : { note }) };
  }

  /** The summary's note of what was dead-lettered, if anything was. */
  note(): string | undefined {
    if (this.counts.size === 0) return undefined;
    const total = this.sent;
    const byReason = [...this.counts].map(([reason, n]) => `${n} ${reason}`).join(', ');
    return `${total} dead letters sent to the relay DLQ ${this.queue.queueUrl} (${byReason}), as the relay would have; their records count as moved`;
  }
}
