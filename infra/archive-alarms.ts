import { Duration } from 'aws-cdk-lib';
import { type Alarm, GraphWidget, Stats } from 'aws-cdk-lib/aws-cloudwatch';
import { ARCHIVER_METRICS } from '../shared/archive/archiver-metrics.js';
import type { OutboxAlarms } from './outbox-alarms.js';
import type { OutboxArchive } from './outbox-archive.js';

/**
 * Age of the archive queue's oldest message that raises `ArchiveQueueAge` by default: the archive
 * normally trails the topics by one batching window (5 minutes by default), and a batch that
 * failed comes back after the queue's visibility timeout (11 minutes by default).
 */
export const DEFAULT_ARCHIVE_QUEUE_AGE = Duration.minutes(30);

/** Options of {@link addArchiveAlarms}. */
export interface ArchiveAlarmsOptions {
  /**
   * Age of the archive queue's oldest message that raises `ArchiveQueueAge` when held for three
   * minutes (60 s to 14 days, the queue's retention). @default 30 minutes
   */
  readonly queueAgeThreshold?: Duration;
}

/**
 * Watches the event archive with the outbox's alarms: the archiver failing (`ArchiverErrors`,
 * function errors), an archive object it could not write (`ArchiveFailedWrites`: those messages
 * come back and are retried), a message that holds no envelope (`ArchiveMalformedRecords`: kept
 * under `malformed/v1/` in the bucket), any message in the archive's DLQs (not archived: redrive
 * them), and the archive falling behind (`ArchiveQueueAge`). The dashboard charts the archive's
 * throughput and failures.
 *
 * @example
 * ```ts
 * addArchiveAlarms(outbox.alarms, archive, { queueAgeThreshold: Duration.minutes(30) });
 * ```
 */
export function addArchiveAlarms(alarms: OutboxAlarms, archive: OutboxArchive, options: ArchiveAlarmsOptions = {}): Alarm[] {
  const errors = archive.function.metricErrors({ period: Duration.minutes(5), statistic: Stats.SUM });
  const failedWrites = archive.metric(ARCHIVER_METRICS.failedWrites);
  const malformed = archive.metric(ARCHIVER_METRICS.malformedRecords);
  const result = [
    alarms.addAlarm(
      'ArchiverErrors',
      errors,
      1,
      1,
      'The archiver failed whole batches (function errors): their messages come back after the visibility timeout, and after five receives go to the archive DLQ.',
    ),
    alarms.addAlarm(
      'ArchiveFailedWrites',
      failedWrites,
      1,
      1,
      'The archiver could not write archive objects to the bucket: their messages come back and are retried. Check the bucket, its key and the archiver role.',
    ),
    alarms.addAlarm(
      'ArchiveMalformedRecords',
      malformed,
      1,
      1,
      'The archive queue received messages that hold no outbox envelope: they are kept under malformed/v1/ in the archive bucket, not in the archive. Find who publishes them to the outbox topics.',
    ),
    alarms.addDeadLetterQueue('ArchiveDeadLetterQueue', archive.deadLetterQueue),
    ...(archive.fifoDeadLetterQueue === undefined
      ? []
      : [alarms.addDeadLetterQueue('ArchiveFifoDeadLetterQueue', archive.fifoDeadLetterQueue)]),
    alarms.addQueueAge('ArchiveQueue', archive.queue, options.queueAgeThreshold ?? DEFAULT_ARCHIVE_QUEUE_AGE),
  ];
  alarms.dashboard.addWidgets(
    new GraphWidget({
      title: 'Archive: events archived, objects written',
      left: [archive.metric(ARCHIVER_METRICS.archivedEvents), archive.metric(ARCHIVER_METRICS.objectsWritten)],
      width: 12,
    }),
    new GraphWidget({
      title: 'Archive: archiver errors, failed writes, malformed records',
      left: [errors, failedWrites, malformed],
      width: 12,
    }),
  );
  return result;
}
