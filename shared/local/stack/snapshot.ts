import type { LiveSnapshot } from './live-view.js';
import type { LocalArchiveCounts } from './local-archiver.js';
import type { LocalStack } from './local-stack.js';

const archiveFigures = ({ archivedEvents, objectsWritten, deadLetters }: LocalArchiveCounts): NonNullable<LiveSnapshot['archive']> => ({
  archivedEvents,
  objectsWritten,
  deadLetters,
});

/**
 * The live view's figures of a running stack, now.
 *
 * @example
 * ```ts
 * startLiveRefresher({ snapshot: () => liveSnapshot(stack, startedAt) });
 * ```
 */
export function liveSnapshot(stack: LocalStack, startedAt: number, loadRate?: number): LiveSnapshot {
  const { stats, relayStats } = stack;
  const depths = stack.deadLetterDepths();
  return {
    at: Date.now(),
    startedAt,
    written: stats.written,
    published: stats.published,
    delivered: stats.delivered,
    lag: stats.lag(),
    lagByType: stats.lagByType(),
    relay: {
      invocations: relayStats.invocations,
      failedInvocations: relayStats.failedInvocations,
      batchesSentToOnFailure: relayStats.batchesSentToOnFailure,
    },
    relayDeadLetters: depths.relay,
    consumers: [...stats.consumers].map(([name, counters]) => ({ name, ...counters, deadLetters: depths.subscribers[name] ?? 0 })),
    ...(loadRate === undefined ? {} : { load: { ...stats.load, rate: loadRate } }),
    ...(stack.archive === undefined ? {} : { archive: archiveFigures(stack.archive.counts()) }),
  };
}
