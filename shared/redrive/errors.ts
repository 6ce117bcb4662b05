import { errorMessage } from '../error-message.js';
import { OutboxError } from '../errors.js';
import type { StreamBatchInfo } from '../on-failure/batch-record.js';
import { counted } from '../plural.js';
import { refusalHeading } from '../refusal-heading.js';
import type { IN_FLIGHT_LIMIT } from './in-flight-limit.js';
import type { RedriveSummary } from './types.js';

/**
 * The headings of refusals of a word of the command line before its options (`command`, `dlq` its
 * subcommand, `kind` redrive's kind); {@link refusalHeading} words `option`, `argument` and `line`.
 */
const WORD_HEADINGS: Readonly<Record<string, (command: string) => string>> = {
  command: () => 'Invalid command',
  dlq: () => 'Invalid dlq subcommand',
  kind: () => 'Invalid redrive kind',
};

/** How a refusal of a command-line word shows it: what was typed, or that there was none. */
export const givenWord = (word: string | undefined): string => (word === undefined ? 'none given' : `got ${JSON.stringify(word)}`);

/** The last argument of `new RedriveOptionsError(...)`: the error's `cause`, and the command the refused option belongs to. */
export interface RedriveRefusalOptions extends ErrorOptions {
  /** The command whose option was refused, as typed: `dlq summarize` for its own. @default 'redrive' */
  readonly command?: string;
}

/**
 * A redrive (or `dlq summarize`) was asked for something impossible or unsafe; nothing was read or
 * moved. `field` is the option at fault, or what else of the command line is, named as such:
 * `command`, `dlq` (its subcommand), `kind` (redrive's kind), `option` (an unknown option),
 * `argument` (a word the command does not take), `line` (anything else of the command line).
 */
export class RedriveOptionsError extends OutboxError {
  readonly field: string;
  /** What was wrong, given and allowed: the message without its heading. */
  readonly detail: string;
  /** The command whose option it is, as typed. */
  readonly command: string;

  constructor(field: string, detail: string, options: RedriveRefusalOptions = {}) {
    const { command = 'redrive', ...errorOptions } = options;
    super('INVALID_REDRIVE_OPTIONS', `${refusalHeading(command, field, WORD_HEADINGS)}: ${detail}`, errorOptions);
    this.name = 'RedriveOptionsError';
    this.field = field;
    this.detail = detail;
    this.command = command;
  }

  /** The same refusal of the option as the command line names it (`--max` for `maxMessages`), or as an option of `command`. */
  restated({ field = this.field, command = this.command }: { readonly field?: string; readonly command?: string }): RedriveOptionsError {
    return new RedriveOptionsError(field, this.detail, { command, ...(this.cause === undefined ? {} : { cause: this.cause }) });
  }
}

/**
 * Reading a failed batch's records back from the stream stopped before the batch's last
 * sequence number; what was read is not the whole batch, so its record is kept. `readFrom` says
 * where the read started: the batch's start by default, or the oldest record left (with the first
 * sequence number the shard gave) when the stream had trimmed the start.
 */
export class StreamRangeIncompleteError extends OutboxError {
  readonly shardId: string;
  /** The last sequence number read, if any. */
  readonly lastRead: string | undefined;

  constructor(info: StreamBatchInfo, lastRead: string | undefined, why: string, readFrom: string = info.startSequenceNumber) {
    super(
      'STREAM_RANGE_INCOMPLETE',
      `read shard ${info.shardId} from ${readFrom} up to ${lastRead ?? '(no record)'}, but the batch ends at ${info.endSequenceNumber}: ${why}`,
    );
    this.name = 'StreamRangeIncompleteError';
    this.shardId = info.shardId;
    this.lastRead = lastRead;
  }
}

/** Why a run held the messages it received in flight. */
export type InFlightHolding =
  /** Every one, to put them all in stream order before it publishes any (on-failure from SQS). */
  | 'ordered'
  /** Those it read and leaves in the queue (all in a dry run; else unmatched, skipped or failed), so that it reads none twice. */
  | 'kept';

/** What a {@link RedriveInFlightLimitError} tells. */
export interface InFlightLimitFacts {
  /** What SQS did, in words: `a receive failed with OverLimit`, say. */
  readonly what: string;
  /** Messages this run held when SQS refused more. */
  readonly held: number;
  /** Messages in flight with other readers before the run. */
  readonly others: number;
  /** SQS's in-flight limit for the queue ({@link IN_FLIGHT_LIMIT}). */
  readonly limit: number;
  readonly fifo: boolean;
  readonly holding: InFlightHolding;
}

/**
 * SQS would hand out no more of a queue's messages while the run held those it had received (a
 * receive refused with `OverLimit`, or answered empty while messages were still visible). A run
 * that holds every message it receives, to put them in order before it publishes any, cannot take
 * a queue this large at once: nothing was published. A run that holds the messages it leaves in
 * the queue read only part of it: what it moved before is moved, the rest was not read. Either
 * way, the messages received and not moved are released.
 */
export class RedriveInFlightLimitError extends OutboxError {
  /** Messages this run held when SQS refused more. */
  readonly held: number;
  /** SQS's in-flight limit for the queue: {@link IN_FLIGHT_LIMIT}`.standard`, or `.fifo` for a FIFO queue. */
  readonly limit: number;
  readonly holding: InFlightHolding;

  constructor({ what, held, others, limit, fifo, holding }: InFlightLimitFacts, options?: ErrorOptions) {
    const room = Math.max(1, limit - others);
    const why =
      holding === 'ordered'
        ? `this redrive holds every record it receives until it has put them all in stream order. Nothing was published, and every record received was made visible again. Allowed: at most about ${room} records a run; redrive the queue in runs of fewer (maxMessages, --max on the command line; each run keeps stream order among the records it receives)`
        : `this run holds every message it reads and leaves in the queue (in a dry run all of them; else those its filter does not match, skipped or failed) until it ends, so that it reads none twice. The messages moved before are moved; the rest of the queue was not read, and every message held was made visible again. Allowed: a run that holds fewer: a wider filter or none (the messages it matches are moved, not held), or at most about ${room} messages read a run (maxMessages, --max on the command line); a run again reads past the messages moved, not past those it left`;
    super(
      'IN_FLIGHT_LIMIT',
      `SQS would hand out no more of the queue's messages (${what}) once this run held ${held} of them, with ${others} more in flight before it: a ${fifo ? 'FIFO' : 'standard'} queue keeps at most about ${limit.toLocaleString('en')} in flight, and ${why}`,
      options,
    );
    this.name = 'RedriveInFlightLimitError';
    this.held = held;
    this.limit = limit;
    this.holding = holding;
  }
}

/**
 * A redrive stopped part way because a call failed (the cause). The kept messages were released;
 * `summary` (status `interrupted`) counts what was done before, so a person knows what moved.
 *
 * @example
 * ```ts
 * try { await redriveRelayDlq(options); } catch (error) {
 *   if (error instanceof RedriveStoppedError) console.log(formatSummary(error.summary));
 * }
 * ```
 */
export class RedriveStoppedError extends OutboxError {
  readonly summary: RedriveSummary;

  constructor(summary: RedriveSummary, cause: unknown) {
    super('REDRIVE_STOPPED', `stopped after ${counted(summary.processed, 'message')}: ${errorMessage(cause)}`, { cause });
    this.name = 'RedriveStoppedError';
    this.summary = summary;
  }
}
