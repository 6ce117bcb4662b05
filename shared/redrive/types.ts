/** Settings every redrive shares. */
export interface RedriveCommonOptions {
  /** Read and classify, but republish and delete nothing. @default false */
  readonly dryRun?: boolean;
  /**
   * Republished events per second, on average (one relay-DLQ message is one event; a queue message
   * one, or as many as a CloudEvents batch message holds; an on-failure record may hold many); at least 1. A queue is then read in batches of at most this
   * many messages (and 10), each sent at once, the next after the last one's share of the time.
   * @default unlimited
   */
  readonly ratePerSecond?: number;
  /** Stop after this many messages (or records). @default unlimited — until the source is empty */
  readonly maxMessages?: number;
  /** Called after every batch; the CLI draws a progress bar with it. */
  readonly onProgress?: (progress: RedriveProgress) => void;
  /**
   * Aborting it stops the run after the batch in hand (a rate-limit wait ends at once, its batch
   * untouched): the kept messages are released and the summary, with status `interrupted`, counts
   * what was done. The CLI aborts it on Ctrl-C.
   */
  readonly signal?: AbortSignal;
}

/** What `onProgress` is called with after every batch of a redrive: the counts so far. */
export interface RedriveProgress {
  /** Messages (or records) taken from the source so far. */
  readonly processed: number;
  /** The count before the run, for a progress bar; may grow while producers add messages. */
  readonly total: number;
  /** Moved so far, as the summary's `moved` counts them. */
  readonly moved: number;
  /** Failed so far, as the summary's `failed` counts them. */
  readonly failed: number;
  /** Skipped so far, as the summary's `skipped` counts them. */
  readonly skipped: number;
}

/** Records that stay in their source, and how many events of theirs were published. */
export interface KeptRecords {
  readonly records: number;
  readonly events: number;
}

/** A message that was not moved, and why; it stays in its source. */
export interface RedriveProblem {
  readonly id: string;
  readonly reason: string;
}

/**
 * What a redrive did. `moved` counts messages republished and then deleted from the source
 * (in a dry run: that would be). `failed` ones were tried (or, on-failure records, could not be
 * read for a passing reason after the retries) and stay: a rerun may move them; `skipped` ones
 * cannot be republished as they are and stay.
 */
export interface RedriveSummary {
  /** `interrupted`: stopped by the caller's signal or an error before the source was empty; the counts are partial. */
  readonly status: 'completed' | 'dry-run' | 'interrupted';
  /** A dry run: `moved` counts what would have moved. Set by the queue redrives; absent means `status` says it. */
  readonly dryRun?: boolean;
  readonly source: string;
  readonly target: string;
  /** Approximate messages (or records) in the source before and after the run. */
  readonly before: number;
  /** `undefined` when the count could not be read, as after a run stopped by an error. */
  readonly after: number | undefined;
  readonly processed: number;
  readonly moved: number;
  /**
   * Events published (in a dry run: that would be): a relay-DLQ message is one; a queue message one, or all a CloudEvents batch
   * message holds; an on-failure record may hold many. Those of a message that stays count too (see `keptRepublished`).
   */
  readonly republished: number;
  /**
   * Messages (records) that stay in the source though events of theirs were published (in a dry
   * run: would be), with those events, which `republished` counts too. `trimmed`: on-failure records
   * past the stream's retention whose first records the stream had trimmed: the events of their
   * records still there went out, and they are listed in `skipped` with the trimmed range. `failed`:
   * on-failure records some of whose events went out before the rest failed, and messages of any
   * kind republished but not deleted, listed in `failed`. Absent when there were none.
   */
  readonly keptRepublished?: { readonly trimmed?: KeptRecords; readonly failed?: KeptRecords };
  /**
   * On-failure redrives given the relay DLQ (`deadLetterQueue`), not in a dry run: dead letters sent
   * to it (events SNS refused for good, unrouted events, malformed slots), which `republished` does
   * not count. Absent otherwise.
   */
  readonly deadLettered?: number;
  readonly failed: readonly RedriveProblem[];
  readonly skipped: readonly RedriveProblem[];
  /** The run's filter in words, when it had one. */
  readonly filter?: string;
  /** With a filter: messages read that do not match it, released untouched (counted in `processed`, not in `skipped`). */
  readonly unmatched?: number;
  /** What a reader must know to trust the counts, e.g. that a FIFO dry run could not see every message. */
  readonly notes?: readonly string[];
}
