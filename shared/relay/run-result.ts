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
export function runResult(
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
