/**
 * How long the relay's and the stream processor's clients wait, in ms, unless the caller gives
 * its own `requestHandler`: to connect, and for a request's answer, which then fails with a
 * `TimeoutError` (the SDK's default is to wait for ever, so one hung connection would hold a
 * relay invocation until Lambda's timeout and retry its whole batch, or a processor's shard
 * until the task is replaced). SQS waits longer than its longest poll (20 s). DynamoDB Streams
 * never long-polls: `GetRecords` answers at once, empty or with at most 1 MB, in tens of ms, so
 * 3 s is ample and keeps a hung read's cost low on the low-latency path: the SDK's next attempt
 * usually gets through on a new connection. A call still unanswered after the failover time
 * (10 s by default; three attempts and the SDK's back-off take about 12 s) is given up by the
 * shard's consumer itself, which reports it as a failed read and retries.
 */
export const CLIENT_TIMEOUTS = {
  streams: { connectionTimeout: 2_000, requestTimeout: 3_000, throwOnRequestTimeout: true },
  sns: { connectionTimeout: 3_000, requestTimeout: 5_000, throwOnRequestTimeout: true },
  sqs: { connectionTimeout: 3_000, requestTimeout: 25_000, throwOnRequestTimeout: true },
  /** The redrive's reads and deletes of failed-batch objects (up to a 6 MB payload each), and the archiver's writes. */
  s3: { connectionTimeout: 3_000, requestTimeout: 30_000, throwOnRequestTimeout: true },
} as const;
