import { allowedOptions, commandLineRefusal } from '../cli-refusal.js';
import { queuesRegion } from '../cli-region.js';
import { isHttpUrl, parseStrictArgs, positiveWholeNumber } from '../cli-tokens.js';
import { MIN_RATE_PER_SECOND, rateOfText } from '../rate-limit.js';
import { showValue } from '../show-value.js';
import { ReplayOptionsError } from './replay-errors.js';
import { DATE_FORMS, DEFAULT_CONCURRENCY, MAX_CONCURRENCY, planReplay } from './replay-options.js';
import type { ReplaySelection } from './replay-types.js';

/** The text of `dynamodb-outbox replay --help`. */
export const REPLAY_USAGE = `Usage: dynamodb-outbox replay --archive-bucket B --from DATE --to-queue URL [options]

Reads the event archive and sends the matching envelopes, unchanged (same ids, sequences and
times), to one SQS queue, each aggregate's events in sequence order. Every message carries the
attributes type and aggregatetype as the relay sets them, and outbox-replay = the replay's id.
On a FIFO queue (URL ending in .fifo) the message group is the aggregate's, as the relay's, and
the deduplication id the event id. The topics' other subscribers see nothing.

Selection:
  --archive-bucket B    the archive's S3 bucket, in any region (S3's redirect to it is followed)
  --from DATE           events whose time is at or after DATE
  --to DATE             events whose time is before DATE (exclusive; default: when the first run started)
  --type T              only events of type T (again for more types)
  --aggregate-type A    only events of aggregate type A
  --aggregate A:ID      only the events of one aggregate (type A, id ID)
  DATE is ${DATE_FORMS}.

Sending:
  --to-queue URL        the SQS queue to send to
  --rate N              send N events per second on average (at least ${MIN_RATE_PER_SECOND})
  --concurrency N       SendMessageBatch requests at once, never two of one aggregate (default ${DEFAULT_CONCURRENCY}, at most ${MAX_CONCURRENCY})
  --dry-run             read, filter and count, send nothing (no checkpoint is read or written)

Checkpoint:
  --checkpoint PATH     where the replay records its position after every acknowledged batch
                        (default: replay-<hash of the selection>.checkpoint in the current directory)
  --restart             start from the beginning, replacing the checkpoint
  The same command run again after a stop (Ctrl-C, a crash, a failed call) goes on where it
  stopped; a checkpoint of another selection is refused, naming what differs.

Output:
  --json                print the summary as JSON
  --endpoint URL        send every AWS call to this endpoint (a local emulator)
  --region REGION       AWS region (default: the one --to-queue names,
                        sqs.<region>.amazonaws.com; else the SDK's: AWS_REGION, the profile's);
                        another than the queue's is refused (not with --endpoint)
  -h, --help            show this text

Progress goes to stderr, the summary to stdout: events sent per type, duplicates skipped, every
corrupt object or line by key, every event the queue refused (the later events of its aggregate
are held back with it). Ctrl-C stops after the batches in flight; a second Ctrl-C exits at once.

Exit status: 0 when every selected event was sent, 1 when the queue refused some or a call failed
(run the same command again to go on), 2 on a usage error or a checkpoint of another selection
(nothing was sent), 130 when interrupted.`;

/** The flags of `replay` that take a value. */
export const REPLAY_VALUE_FLAGS: Readonly<Record<string, string>> = {
  '--archive-bucket': 'B',
  '--from': 'DATE',
  '--to': 'DATE',
  '--type': 'T',
  '--aggregate-type': 'A',
  '--aggregate': 'A:ID',
  '--to-queue': 'URL',
  '--rate': 'N',
  '--concurrency': 'N',
  '--checkpoint': 'PATH',
  '--endpoint': 'URL',
  '--region': 'REGION',
};

const ALLOWED = allowedOptions(REPLAY_VALUE_FLAGS, '--dry-run', '--restart', '--json', '--help');

/** A parsed `replay` command line. */
export type ReplayCommand =
  | { readonly kind: 'replay-help' }
  | (ReplaySelection & {
      readonly kind: 'replay';
      readonly ratePerSecond?: number;
      readonly concurrency?: number;
      readonly dryRun: boolean;
      readonly checkpointPath?: string;
      readonly restart: boolean;
      readonly json: boolean;
      readonly endpoint?: string;
      readonly region?: string;
    });

/** The flag of each option `planReplay` checks. */
const FLAGS: Readonly<Record<string, string>> = {
  bucket: '--archive-bucket',
  from: '--from',
  to: '--to',
  types: '--type',
  aggregateType: '--aggregate-type',
  aggregate: '--aggregate',
  queueUrl: '--to-queue',
  ratePerSecond: '--rate',
  concurrency: '--concurrency',
  checkpointPath: '--checkpoint',
};

function required(value: string | undefined, flag: string): string {
  if (value === undefined)
    throw new ReplayOptionsError(flag, `is required for replay, none given; allowed: ${flag} ${REPLAY_VALUE_FLAGS[flag]} (see --help)`);
  return value;
}

function aggregateOf(value: string | undefined): { type: string; id: string } | undefined {
  if (value === undefined) return undefined;
  const colon = value.indexOf(':');
  if (colon <= 0 || colon === value.length - 1) {
    throw new ReplayOptionsError(
      '--aggregate',
      `got ${JSON.stringify(value)}; allowed: TYPE:ID, e.g. order:o-123 (the id may hold more colons)`,
    );
  }
  return { type: value.slice(0, colon), id: value.slice(colon + 1) };
}

/** `--concurrency N`: one refusal for any value outside 1–100, with the range and the text as typed. */
function concurrencyOf(text: string): number {
  const refuse = () =>
    new ReplayOptionsError(
      '--concurrency',
      `got ${showValue(text)}; allowed: a whole number from 1 to ${MAX_CONCURRENCY} in decimal digits`,
    );
  const n = positiveWholeNumber(text, refuse);
  if (n > MAX_CONCURRENCY) throw refuse();
  return n;
}

function httpUrl(value: string, flag: string): string {
  if (!isHttpUrl(value)) {
    throw new ReplayOptionsError(
      flag,
      `got ${JSON.stringify(value)}; allowed: an http:// or https:// URL with a host, e.g. http://localhost:4566`,
    );
  }
  return value;
}

/**
 * Parses `replay [options]`: every bad flag or value throws a {@link ReplayOptionsError} naming
 * the flag, what was given and what is allowed, before any AWS call.
 *
 * @example
 * ```ts
 * const command = parseReplayArgs(['replay', '--archive-bucket', 'b', '--from', '2026-03-01', '--to-queue', url]);
 * ```
 */
export function parseReplayArgs(argv: readonly string[]): ReplayCommand {
  const { values, positionals } = parseStrictArgs(
    argv,
    {
      'archive-bucket': { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      type: { type: 'string', multiple: true },
      'aggregate-type': { type: 'string' },
      aggregate: { type: 'string' },
      'to-queue': { type: 'string' },
      rate: { type: 'string' },
      concurrency: { type: 'string' },
      checkpoint: { type: 'string' },
      restart: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      endpoint: { type: 'string' },
      region: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    {
      valueFlags: REPLAY_VALUE_FLAGS,
      repeatable: ['type'],
      allowed: ALLOWED,
      refuse: commandLineRefusal(ALLOWED, REPLAY_VALUE_FLAGS, (field, detail, options) => new ReplayOptionsError(field, detail, options)),
    },
  );
  if (values.help) return { kind: 'replay-help' };
  const [, ...rest] = positionals;
  if (rest.length > 0)
    throw new ReplayOptionsError('argument', `got ${JSON.stringify(rest.join(' '))}; allowed: options only after replay (see --help)`);
  if (values.endpoint !== undefined) httpUrl(values.endpoint, '--endpoint');
  if (values.region !== undefined && !/^[a-z0-9-]+$/.test(values.region)) {
    throw new ReplayOptionsError('--region', `got ${JSON.stringify(values.region)}; allowed: an AWS region name, e.g. eu-west-1`);
  }
  if (values.checkpoint === '') throw new ReplayOptionsError('--checkpoint', 'got ""; allowed: a file path');
  if (values.restart && values['dry-run']) {
    throw new ReplayOptionsError('--restart', 'does not apply with --dry-run, which neither reads nor writes a checkpoint');
  }
  const rate = values.rate === undefined ? undefined : rateOfText(values.rate, (problem) => new ReplayOptionsError('--rate', problem));
  const concurrency = values.concurrency === undefined ? undefined : concurrencyOf(values.concurrency);
  const aggregate = aggregateOf(values.aggregate);
  const command = {
    kind: 'replay' as const,
    bucket: required(values['archive-bucket'], '--archive-bucket'),
    from: required(values.from, '--from'),
    queueUrl: required(values['to-queue'], '--to-queue'),
    ...(values.to === undefined ? {} : { to: values.to }),
    ...(values.type === undefined ? {} : { types: values.type }),
    ...(values['aggregate-type'] === undefined ? {} : { aggregateType: values['aggregate-type'] }),
    ...(aggregate === undefined ? {} : { aggregate }),
    ...(rate === undefined ? {} : { ratePerSecond: rate }),
    ...(concurrency === undefined ? {} : { concurrency }),
    dryRun: values['dry-run'] === true,
    ...(values.checkpoint === undefined ? {} : { checkpointPath: values.checkpoint }),
    restart: values.restart === true,
    json: values.json === true,
    ...(values.endpoint === undefined ? {} : { endpoint: values.endpoint }),
    ...(values.region === undefined ? {} : { region: values.region }),
  };
  try {
    planReplay({ ...command, s3: { send: unused }, sqs: { send: unused } });
  } catch (error) {
    throw asReplayFlag(error);
  }
  // A --region other than the queue's would fail only at the first send.
  queuesRegion([{ flag: '--to-queue', url: command.queueUrl }], command, (field, detail) => new ReplayOptionsError(field, detail));
  return command;
}

/**
 * A refusal of `replayArchive` as the command line gave it: the option named by its flag
 * (`queueUrl` is `--to-queue`); any other error as it is.
 */
export function asReplayFlag(error: unknown): unknown {
  if (!(error instanceof ReplayOptionsError) || FLAGS[error.field] === undefined) return error;
  return new ReplayOptionsError(FLAGS[error.field] as string, error.detail, { cause: error });
}

const unused = (): never => {
  throw new Error('no AWS call while the command line is checked');
};
