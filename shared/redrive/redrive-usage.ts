import { MIN_RATE_PER_SECOND } from '../rate-limit.js';
import { FILTER_USAGE } from './filter-args.js';

/** The text of `dynamodb-outbox redrive --help`. */
export const REDRIVE_USAGE = `Usage: dynamodb-outbox redrive <kind> [options]

Kinds:
  relay-dlq    Republish the envelopes held in the relay DLQ to their topics (same event ids).
               --queue-url URL       the relay DLQ
               --topic-arns JSON     topic name → ARN (default: $OUTBOX_TOPIC_ARNS)
               --config FILE         routes dead letters written without a topic (default: $OUTBOX_CONFIG;
                                     without either, those are skipped and stay)
  queue-dlq    Move a subscriber DLQ's messages back to the queue they came from.
               --queue-url URL       the subscriber DLQ
               --to URL              the source queue
  on-failure   Republish the events of the relay's on-failure records.
               --queue-url URL       records in an SQS destination (re-read from the stream), or
               --bucket NAME         records in an S3 destination (payload kept), with --prefix P;
                                     in any region (S3's redirect to it is followed)
               --topic-arns JSON     topic name → ARN (default: $OUTBOX_TOPIC_ARNS), one for every
                                     topic the config routes to
               --config FILE         the outbox config, which routes the events (default: $OUTBOX_CONFIG;
                                     one of the two is required)
               --relay-dlq-url URL   the relay DLQ (default: $OUTBOX_RELAY_DLQ_URL): an event SNS refuses
                                     for good, an event without a route and a malformed outbox slot are
                                     dead-lettered there as the relay does, and their record moves once
                                     the dead letter is sent; without it, such a record stays (failed,
                                     or skipped holding back the later records of its shard)
               --streams-endpoint URL
                                     where the DynamoDB Streams calls go (re-reading a record, listing
                                     a stream's shards) instead of --endpoint: on the local stack,
                                     DynamoDB Local's address, as the stream is DynamoDB Local's

  FILE is a .json file holding the config as JSON (as $OUTBOX_CONFIG holds it), or a module
  exporting \`config\` (.js, .mjs; .ts, .mts when node runs with a TypeScript loader such as tsx).

Options:
  --dry-run          read and report, republish and delete nothing
  --rate N           republish N events per second on average (at least ${MIN_RATE_PER_SECOND}; a relay-dlq
                     message is one event, a queue-dlq message one or all a CloudEvents batch
                     message holds, an on-failure record may hold many),
                     reading N messages at a time (at most 10)
  --max N            stop after N messages (or records) read, matching a filter or not
  --endpoint URL     send every AWS call to this endpoint (a local emulator), on-failure's
                     DynamoDB Streams calls too unless --streams-endpoint is given
  --region REGION    AWS region (default: the one the queue URLs name, sqs.<region>.amazonaws.com;
                     else the SDK's: AWS_REGION, the profile's; else the topic ARNs'); queues of
                     two regions, a region other than theirs, or a topic ARN of another region
                     than the run's, are refused (not with --endpoint; topics not with an SNS
                     endpoint configured by AWS_ENDPOINT_URL_SNS, AWS_ENDPOINT_URL or the profile)
  -h, --help         show this text

  relay-dlq and queue-dlq move only the dead letters that match the filters below; the others are
  made visible again, untouched. In a FIFO DLQ a message that does not match holds back the later
  messages of its group (they stay), so no group is moved out of order. A CloudEvents batch
  message matches when any one of its events matches --type, --since and --until together, and
  queue-dlq moves it whole (its events count as moved). Find the groups first
  with: dynamodb-outbox dlq summarize --queue-url URL

${FILTER_USAGE}

Ctrl-C stops after the current batch: kept messages are released and a partial summary is
printed (status interrupted); a second Ctrl-C exits at once.

Exit status: 0 when every message asked for was moved (those a filter did not match are left
and count for nothing), 1 when some messages failed and were kept (or a call failed mid-run):
a rerun may move them, as an on-failure record whose stream, shard listing or object could not
be read for throttling or a server error; 2 on a usage error (nothing was read), 3 when none
failed but some were skipped and stay (the summary says why of each; a dry run too): they cannot
be redriven as they are; 130 when interrupted.`;
