import type { Lane, LaneItem } from './lanes.js';
import type { RecordFailureReason, RecordOutcome, RelayResult } from './outcome.js';
import type { RecordCoordinates } from './stream-record.js';

/** Where one record of a run stands: its events still out, those done, and how it ended. */
export interface RecordState {
  outstanding: number;
  published: number;
  deadLettered: number;
  failure?: { reason: RecordFailureReason; detail: string };
  outcome?: RecordOutcome;
}

/** The run's result from its records' states, in the order the records came. */
function runResult(
  states: readonly RecordState[],
  coordinates: readonly RecordCoordinates[],
  counts: { readonly retried: number; readonly deadLettered: number },
): RelayResult {
  let published = 0;
  let ignored = 0;
  let failed = 0;
  const outcomes = states.map((state, index): RecordOutcome => {
    const record = coordinates[index]!;
    published += state.published;
    if (state.outcome !== undefined) {
      ignored++;
      return state.outcome;
    }
    if (state.failure !== undefined) {
      failed++;
      return { status: 'failed', record, ...state.failure };
    }
    return { status: 'delivered', record, published: state.published, deadLettered: state.deadLettered };
  });
  return { outcomes, published, retried: counts.retried, deadLettered: counts.deadLettered, ignored, failed };
}

/**
 * What happened to each record of one run: its state as its lanes' items are delivered or fail,
 * the run's counts, and the result they make. The run decides what to send and when; this keeps
 * the account of what came of it.
 */
export class RunRecords {
  /** Each record's state, in the order the records came (`fillLanes` sets what each still has to send). */
  readonly states: RecordState[];
  /** Messages sent again after a failed attempt. */
  retried = 0;
  private deadLettered = 0;

  /** `coordinates`: each record's, worked out once, in the order the records came. */
  constructor(readonly coordinates: readonly RecordCoordinates[]) {
    this.states = coordinates.map(() => ({ outstanding: 0, published: 0, deadLettered: 0 }));
  }

  /** The lane's head items are done (published, or in the relay DLQ): they leave the lane, and their records count them. */
  advance(lane: Lane, items: readonly LaneItem[], how: 'published' | 'deadLettered'): void {
    lane.items.splice(0, items.length);
    lane.busy = false;
    lane.readyAt = 0;
    if (how === 'deadLettered') this.deadLettered += items.length;
    for (const item of items) {
      const state = this.states[item.recordIndex]!;
      state[how]++;
      state.outstanding--;
    }
  }

  /** Stops the lane: its head's record failed, and every later record of the aggregate waits for the retry. */
  failLane(lane: Lane, reason: RecordFailureReason, detail: string): void {
    lane.failed = true;
    lane.busy = false;
    const head = lane.items[0]!.recordIndex;
    for (const item of lane.items) {
      const state = this.states[item.recordIndex]!;
      state.failure ??=
        item.recordIndex === head
          ? { reason, detail }
          : { reason: 'BLOCKED_BY_EARLIER_FAILURE', detail: `held back behind the failed record of aggregate ${lane.key}` };
    }
    lane.items.length = 0;
  }

  /** The run's result, in the order the records came. */
  result(): RelayResult {
    return runResult(this.states, this.coordinates, { retried: this.retried, deadLettered: this.deadLettered });
  }
}
