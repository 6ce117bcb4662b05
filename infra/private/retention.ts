import { Duration } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';

/**
 * SQS's longest retention period: every dead-letter queue keeps its messages this long, and the
 * queue ages and retention periods the constructs take are checked against it.
 */
export const SQS_MAX_RETENTION = Duration.days(14);

/** {@link SQS_MAX_RETENTION} in seconds, the bound of `checkSeconds`. */
export const SQS_MAX_RETENTION_SECONDS = SQS_MAX_RETENTION.toSeconds();

/** How long the functions' and the processor's logs are kept unless `logRetention` says otherwise. */
export const DEFAULT_LOG_RETENTION = RetentionDays.ONE_MONTH;
