import type { SQSClient } from '@aws-sdk/client-sqs';
import { type QueueCounts, queueCounts } from '../aws/sqs-queue-counts.js';
import { counted } from '../plural.js';

export { type QueueCounts, queueCounts } from '../aws/sqs-queue-counts.js';
// In a module of its own, which loads no SDK client, for the errors that state it.
export { IN_FLIGHT_LIMIT } from './in-flight-limit.js';

/**
 * Approximate messages on a queue: visible, in flight and delayed.
 *
 * @example
 * ```ts
 * const before = await approximateCount(sqs, queueUrl);
 * ```
 */
export async function approximateCount(sqs: SQSClient, queueUrl: string): Promise<number> {
  const counts = await queueCounts(sqs, queueUrl);
  return counts.visible + counts.inFlight + counts.delayed;
}

/**
 * What a reader of a FIFO queue's summary must know: SQS hands out no message of a group while an
 * earlier one of it is in flight, and the run keeps what it does not move in flight to the end. So
 * a dry run sees only the first messages of each group, and a real run none behind a kept one: when
 * it read as many as the queue held before, there was none to miss, and the note says so.
 * A dry run that saw as many messages as the queue held before (each group had one, say) says only
 * that it may have missed some: the counts are approximate, and producers may have added more.
 */
export function fifoNotes(counts: QueueCounts, dryRun: boolean, seen: number, kept: number): string[] {
  if (dryRun) {
    const total = counts.visible + counts.inFlight + counts.delayed;
    const why = 'SQS hands out no further message of a group while one is in flight, and a dry run keeps every message it sees in flight';
    return [
      seen < total
        ? `FIFO queue: only the first messages of each message group were seen (${seen} of about ${total}; ApproximateNumberOfMessages was ${counts.visible} before the run). ${why}; a real run moves the rest too.`
        : `FIFO queue: ${counted(seen, 'message')} seen, as many as the queue held before the run (about ${total}; ApproximateNumberOfMessages was ${counts.visible}); messages behind the first of a message group may still have been missed (${why}); a real run would move them too.`,
    ];
  }
  if (kept === 0) return [];
  const total = counts.visible + counts.inFlight + counts.delayed;
  const left = `${counted(kept, 'message')} it leaves in the queue`;
  const one = kept === 1;
  const why = 'SQS hands out no further message of a group while one is in flight';
  // Only a run that read fewer than the queue held can have missed any behind them.
  return seen >= total
    ? [
        `FIFO queue: the ${left} ${one ? 'stays first in its message group' : 'stay first in their message groups'}; the run read as many messages as the queue held before it (about ${total}), so none was behind ${one ? 'it' : 'them'} then (${why}: one that arrived since waits behind ${one ? 'it' : 'them'}).`,
      ]
    : [
        `FIFO queue: the run read ${seen} of about ${counted(total, 'message')}; those behind the ${left}, in ${one ? 'its message group' : 'their message groups'}, were not seen (${why}); they stay in the queue, in order behind ${one ? 'it' : 'them'}.`,
      ];
}
