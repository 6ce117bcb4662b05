import { SQS_QUEUE_URL_ALLOWED } from '../aws/sqs-queue-url.js';
import { allowedOptions, commandLineRefusal } from '../cli-refusal.js';
import { queuesRegion } from '../cli-region.js';
import { parseStrictArgs } from '../cli-tokens.js';
import { countOf, httpUrl, queueUrlArg, regionArg } from './cli-args.js';
import type { DeadLetterFilter } from './dead-letter-filter.js';
import { givenWord, RedriveOptionsError } from './errors.js';
import { FILTER_OPTIONS, FILTER_USAGE, FILTER_VALUE_FLAGS, filterFromArgs } from './filter-args.js';
import { IN_FLIGHT_LIMIT } from './in-flight-limit.js';

export const DLQ_USAGE = `Usage: dynamodb-outbox dlq summarize --queue-url URL [options]

Reads every message of a dead-letter queue (the relay DLQ or a subscriber's; each message's shape
tells which) without consuming it, and prints its dead letters' events grouped by reason, event
type and aggregate type, with counts of events and of the messages that hold them (a CloudEvents
batch message holds several) and first/last time. Every message is made visible again at the end
(its receive count grows by one); nothing is deleted.

Reasons: the relay's PUBLISH_REJECTED, MALFORMED_SLOT, UNKNOWN_ROUTE; MAX_RECEIVE_COUNT_EXCEEDED
for an outbox envelope in a subscriber DLQ (SQS keeps no other cause); MALFORMED for a message
that is neither.

Options:
  --queue-url URL    the dead-letter queue
  --json             print the summary as JSON
  --max N            stop after reading N messages
  --endpoint URL     send every AWS call to this endpoint (a local emulator)
  --region REGION    AWS region (default: the one the queue URL names, sqs.<region>.amazonaws.com;
                     else the SDK's: AWS_REGION, the profile's); another than the URL's is
                     refused (not with --endpoint)
  -h, --help         show this text

${FILTER_USAGE}
  With filters, every message is still read; the groups count the matching events.

Limits: SQS lets a standard queue have about 120,000 messages in flight; past that its receives
come back empty and the summary ends there, status completed, with a note that it read N of about
M; a receive refused with OverLimit ends it with status partial, as --max N does (a sample).
A FIFO queue hands out at most ${IN_FLIGHT_LIMIT.fifo.toLocaleString('en')} too, and no message of a group while an earlier one
is in flight, so only the first messages of each group are read; a note says how many of about
how many.

Exit status: 0 when read, 1 when a call failed, 2 on a usage error, 130 when interrupted.`;

/** The flags of `dlq summarize` that take a value. */
export const DLQ_VALUE_FLAGS: Readonly<Record<string, string>> = {
  '--queue-url': 'URL',
  '--max': 'N',
  '--endpoint': 'URL',
  '--region': 'REGION',
  ...FILTER_VALUE_FLAGS,
};

/** A parsed `dlq` command line. */
export type DlqCommand =
  | { readonly kind: 'dlq-help' }
  | {
      readonly kind: 'dlq-summarize';
      readonly queueUrl: string;
      readonly json: boolean;
      readonly maxMessages?: number;
      readonly endpoint?: string;
      readonly region?: string;
      readonly filter?: DeadLetterFilter;
    };

/** The command whose options these are, as typed. */
const COMMAND = 'dlq summarize';

const ALLOWED = allowedOptions(DLQ_VALUE_FLAGS, '--json', '--help');

/**
 * Parses `dlq summarize [options]`; a bad flag or value throws a {@link RedriveOptionsError}
 * naming it as an option of `dlq summarize`, before any AWS call.
 *
 * @example
 * ```ts
 * const command = parseDlqArgs(['dlq', 'summarize', '--queue-url', dlqUrl, '--json']);
 * ```
 */
export function parseDlqArgs(argv: readonly string[]): DlqCommand {
  try {
    return dlqCommand(argv);
  } catch (error) {
    // The checks shared with redrive (a URL, --max, the filters) refuse as redrive's: restated as dlq summarize's own.
    throw error instanceof RedriveOptionsError && error.command !== COMMAND ? error.restated({ command: COMMAND }) : error;
  }
}

function dlqCommand(argv: readonly string[]): DlqCommand {
  const { values, positionals } = parseStrictArgs(
    argv,
    {
      'queue-url': { type: 'string' },
      json: { type: 'boolean', default: false },
      max: { type: 'string' },
      endpoint: { type: 'string' },
      region: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
      ...FILTER_OPTIONS,
    },
    {
      valueFlags: DLQ_VALUE_FLAGS,
      repeatable: ['type'],
      allowed: ALLOWED,
      refuse: commandLineRefusal(
        ALLOWED,
        DLQ_VALUE_FLAGS,
        (field, detail, options) => new RedriveOptionsError(field, detail, { ...options, command: COMMAND }),
      ),
    },
  );
  if (values.help) return { kind: 'dlq-help' };
  const [, action, ...rest] = positionals;
  if (action !== 'summarize') throw new RedriveOptionsError('dlq', `${givenWord(action)}; allowed: summarize`);
  if (rest.length > 0) {
    throw new RedriveOptionsError(
      'argument',
      `got ${JSON.stringify(rest.join(' '))}; allowed: options only after ${COMMAND} (see --help)`,
      {
        command: COMMAND,
      },
    );
  }
  const given = values['queue-url'];
  if (given === undefined)
    throw new RedriveOptionsError('--queue-url', `is required, ${givenWord(given)}; allowed: ${SQS_QUEUE_URL_ALLOWED}`);
  const queueUrl = queueUrlArg(given, '--queue-url');
  if (values.endpoint !== undefined) {
    httpUrl(values.endpoint, '--endpoint', 'an http:// or https:// URL with a host, e.g. http://localhost:4566');
  }
  if (values.region !== undefined) regionArg(values.region);
  queuesRegion(
    [{ flag: '--queue-url', url: queueUrl }],
    values,
    (field, detail) => new RedriveOptionsError(field, detail, { command: COMMAND }),
  );
  const max = countOf(values.max, '--max');
  const filter = filterFromArgs(values);
  return {
    kind: 'dlq-summarize',
    queueUrl,
    json: values.json === true,
    ...(max === undefined ? {} : { maxMessages: max }),
    ...(values.endpoint === undefined ? {} : { endpoint: values.endpoint }),
    ...(values.region === undefined ? {} : { region: values.region }),
    ...(filter === undefined ? {} : { filter }),
  };
}
