/** Settings every redrive shares. */
export interface RedriveCommonOptions {
  /** Read and classify, but republish and delete nothing. @default false */
  readonly dryRun?: boolean;
  /** Republished messages per second, at most. @default unlimited */
  readonly ratePerSecond?: number;
  /** Stop after this many messages (or records). @default unlimited — until the source is empty */
  readonly maxMessages?: number;
  /** Called after every batch; the CLI draws a progress bar with it. */
  readonly onProgress?: (progress: RedriveProgress) => void;
}

export interface RedriveProgress {
  /** Messages (or records) taken from the source so far. */
  readonly processed: number;
  /** The count before the run, for a progress bar; may grow while producers add messages. */
  readonly total: number;
  readonly moved: number;
  readonly failed: number;
  readonly skipped: number;
}

/** A message that was not moved, and why; it stays in its source. */
export interface RedriveProblem {
  readonly id: string;
  readonly reason: string;
}

/**
 * What a redrive did. `moved` counts messages republished and then deleted from the source
 * (in a dry run: that would be). `failed` ones were tried and stay; `skipped` ones cannot be
 * republished as they are and stay.
 */
export interface RedriveSummary {
  readonly status: 'completed' | 'dry-run';
  readonly source: string;
  readonly target: string;
  /** Approximate messages (or records) in the source before and after the run. */
  readonly before: number;
  readonly after: number;
  readonly processed: number;
  readonly moved: number;
  /** Events published: one relay-DLQ or queue message is one event; an on-failure record may hold many. */
  readonly republished: number;
  readonly failed: readonly RedriveProblem[];
  readonly skipped: readonly RedriveProblem[];
}
