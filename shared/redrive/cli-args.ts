import { S3_BUCKET_NAME_RULE, s3BucketNameProblem } from '../aws/s3-bucket-name.js';
import { SQS_QUEUE_URL_ALLOWED } from '../aws/sqs-queue-url.js';
import { allowedOptions, commandLineRefusal } from '../cli-refusal.js';
import { isHttpUrl, parseStrictArgs, positiveWholeNumber } from '../cli-tokens.js';
import { CONFIG_FILE_FORMS } from '../config-file.js';
import { RELAY_ENV } from '../event-source.js';
import { rateOfText } from '../rate-limit.js';
import { DEAD_LETTER_QUEUE_URL_ALLOWED, deadLetterQueueUrlFault } from '../relay/dead-letter-sender.js';
import { showValue } from '../show-value.js';
import { regionChecked } from './cli-region.js';
import type { DeadLetterFilter } from './dead-letter-filter.js';
import { givenWord, RedriveOptionsError } from './errors.js';
import { FILTER_OPTIONS, FILTER_VALUE_FLAGS, filterFromArgs } from './filter-args.js';
import { checkQueueUrl } from './option-checks.js';
import { RATE_FLOOR_REASON } from './rate-limit.js';
import { topicArnsOf } from './topic-arns-arg.js';

export { REDRIVE_USAGE } from './redrive-usage.js';

/** The relay's variable for its DLQ's URL, the default of `--relay-dlq-url`. */
const RELAY_DLQ_URL_ENV = RELAY_ENV.deadLetterQueueUrl;

export type RedriveKind = 'relay-dlq' | 'queue-dlq' | 'on-failure';

interface CommonArgs {
  readonly dryRun: boolean;
  readonly ratePerSecond?: number;
  readonly maxMessages?: number;
  readonly endpoint?: string;
  readonly region?: string;
}

/** A parsed command line, ready to run. */
export type RedriveCommand =
  | { readonly kind: 'help' }
  | (CommonArgs & {
      readonly kind: 'relay-dlq';
      readonly queueUrl: string;
      readonly filter?: DeadLetterFilter;
      readonly topicArns: Record<string, string>;
      /** `--config FILE`, as typed; the config is loaded only after the whole command line was checked. */
      readonly configFile?: string;
    })
  | (CommonArgs & {
      readonly kind: 'queue-dlq';
      readonly queueUrl: string;
      readonly targetQueueUrl: string;
      readonly filter?: DeadLetterFilter;
    })
  | (CommonArgs & {
      readonly kind: 'on-failure';
      readonly source: { readonly queueUrl: string } | { readonly bucket: string; readonly prefix?: string };
      readonly topicArns: Record<string, string>;
      readonly configFile?: string;
      /** `--relay-dlq-url`, else `$OUTBOX_RELAY_DLQ_URL`: where what the relay dead-letters goes. */
      readonly relayDlqUrl?: string;
      /** `--streams-endpoint`: where the DynamoDB Streams calls go, apart from `--endpoint` (DynamoDB Local's port on the local stack). */
      readonly streamsEndpoint?: string;
    });

const KINDS: readonly RedriveKind[] = ['relay-dlq', 'queue-dlq', 'on-failure'];

/** The flags that take a value, with what the value is. */
export const VALUE_FLAGS: Readonly<Record<string, string>> = {
  '--queue-url': 'URL',
  '--to': 'URL',
  '--bucket': 'NAME',
  '--prefix': 'P',
  '--topic-arns': 'JSON',
  '--config': 'FILE',
  '--relay-dlq-url': 'URL',
  '--rate': 'N',
  '--max': 'N',
  '--endpoint': 'URL',
  '--streams-endpoint': 'URL',
  '--region': 'REGION',
  ...FILTER_VALUE_FLAGS,
};
const ALLOWED = allowedOptions(VALUE_FLAGS, '--dry-run', '--help');

/** `--max N` (or another count), by the shared rule: a refusal names `flag` as a redrive option. */
export const countOf = (value: string | undefined, flag: string): number | undefined =>
  value === undefined ? undefined : positiveWholeNumber(value, (problem) => new RedriveOptionsError(flag, problem));

/** `--rate N`, by the rule and with the reason of the redrive functions' `ratePerSecond`. */
const rateOf = (value: string | undefined): number | undefined =>
  value === undefined ? undefined : rateOfText(value, (problem) => new RedriveOptionsError('--rate', problem), RATE_FLOOR_REASON);

const ENDPOINT_ALLOWED = 'an http:// or https:// URL with a host';

/** An http(s) URL, as endpoints are; anything else sends nowhere. */
export function httpUrl(value: string, flag: string, allowed: string): string {
  if (!isHttpUrl(value)) throw new RedriveOptionsError(flag, `got ${JSON.stringify(value)}; allowed: ${allowed}`);
  return value;
}

/** `--region REGION`: an AWS Region's name, lower-case letters, digits and hyphens; anything else signs for no Region. */
export function regionArg(value: string): string {
  if (!/^[a-z0-9-]+$/.test(value)) {
    throw new RedriveOptionsError('--region', `got ${JSON.stringify(value)}; allowed: an AWS region name, e.g. eu-west-1`);
  }
  return value;
}

/**
 * An SQS queue URL by the one rule, as the library functions check theirs ({@link checkQueueUrl}),
 * else a refusal naming `flag`, what was given and what was wrong: anything else fails only after the run began.
 */
export function queueUrlArg(value: string, flag: string): string {
  checkQueueUrl(value, flag);
  return value;
}

function queueUrlOf(value: string | undefined, flag: string, kind: string): string {
  if (value === undefined) {
    throw new RedriveOptionsError(flag, `is required for ${kind}, ${givenWord(value)}; allowed: ${SQS_QUEUE_URL_ALLOWED}`);
  }
  return queueUrlArg(value, flag);
}

function bucketOf(value: string): string {
  const problem = s3BucketNameProblem(value);
  if (problem !== undefined) {
    throw new RedriveOptionsError(
      '--bucket',
      `got ${JSON.stringify(value)}, which ${problem}; allowed: an S3 bucket name: ${S3_BUCKET_NAME_RULE}`,
    );
  }
  return value;
}

/**
 * `--relay-dlq-url URL`, else `$OUTBOX_RELAY_DLQ_URL` (the relay's variable), as a spread: nothing
 * when neither is given. Checked as the relay checks its DLQ's URL: a FIFO queue's is refused.
 */
function relayDlqUrlOf(value: string | undefined, env: NodeJS.ProcessEnv): { relayDlqUrl?: string } {
  const url = value ?? (env[RELAY_DLQ_URL_ENV] === '' ? undefined : env[RELAY_DLQ_URL_ENV]);
  if (url === undefined) return {};
  const from = value === undefined ? ` (from ${RELAY_DLQ_URL_ENV})` : '';
  const fault = deadLetterQueueUrlFault(url);
  if (fault !== undefined) {
    throw new RedriveOptionsError(
      '--relay-dlq-url',
      `got ${JSON.stringify(url)}${from}, which ${fault}; allowed: ${DEAD_LETTER_QUEUE_URL_ALLOWED}`,
    );
  }
  return { relayDlqUrl: url };
}

/** `--config FILE` as a spread: nothing when not given, so a command without it has no such key. */
function configFileOf(value: string | undefined): { configFile?: string } {
  if (value === undefined) return {};
  if (value === '') throw new RedriveOptionsError('--config', `got ""; allowed: ${CONFIG_FILE_FORMS}`);
  return { configFile: value };
}

/**
 * Parses `redrive <kind> [options]`. Unknown flags, missing values and impossible combinations
 * throw a {@link RedriveOptionsError} naming the flag, before any AWS call; so do queue URLs of
 * different Regions and a `--region` other than theirs (unless `--endpoint` is given). A topic ARN
 * of another Region than the run's is refused by `redriveRegion`, before any AWS call too.
 *
 * @example
 * ```ts
 * const command = parseRedriveArgs(['redrive', 'queue-dlq', '--queue-url', dlq, '--to', source, '--dry-run']);
 * ```
 */
export function parseRedriveArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  topicArnsEnv = 'OUTBOX_TOPIC_ARNS',
): RedriveCommand {
  const command = redriveCommand(argv, env, topicArnsEnv);
  // Queues of two Regions, or --region other than theirs, would fail only at the first call.
  return command.kind === 'help' ? command : regionChecked(command, env);
}

function redriveCommand(argv: readonly string[], env: NodeJS.ProcessEnv, topicArnsEnv: string): RedriveCommand {
  // --type is the one flag meant to be given more than once.
  const { values, positionals } = parseStrictArgs(
    argv,
    {
      'queue-url': { type: 'string' },
      to: { type: 'string' },
      bucket: { type: 'string' },
      prefix: { type: 'string' },
      'topic-arns': { type: 'string' },
      config: { type: 'string' },
      'relay-dlq-url': { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      rate: { type: 'string' },
      max: { type: 'string' },
      endpoint: { type: 'string' },
      'streams-endpoint': { type: 'string' },
      region: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
      ...FILTER_OPTIONS,
    },
    {
      valueFlags: VALUE_FLAGS,
      repeatable: ['type'],
      allowed: ALLOWED,
      refuse: commandLineRefusal(
        ALLOWED,
        VALUE_FLAGS,
        (field, detail, options) => new RedriveOptionsError(field, detail, { ...options, command: 'redrive' }),
      ),
    },
  );
  if (values.help) return { kind: 'help' };
  const [command, kind, ...rest] = positionals;
  if (command !== 'redrive') throw new RedriveOptionsError('command', `${givenWord(command)}; allowed: redrive`);
  if (!KINDS.includes(kind as RedriveKind)) throw new RedriveOptionsError('kind', `${givenWord(kind)}; allowed: ${KINDS.join(', ')}`);
  if (rest.length > 0) {
    throw new RedriveOptionsError(
      'argument',
      `got ${JSON.stringify(rest.join(' '))}; allowed: options only after redrive ${kind} (see --help)`,
    );
  }
  const rate = rateOf(values.rate);
  const max = countOf(values.max, '--max');
  if (values.endpoint !== undefined) httpUrl(values.endpoint, '--endpoint', `${ENDPOINT_ALLOWED}, e.g. http://localhost:4566`);
  const streamsEndpoint = values['streams-endpoint'];
  if (streamsEndpoint !== undefined) httpUrl(streamsEndpoint, '--streams-endpoint', `${ENDPOINT_ALLOWED}, e.g. http://localhost:8000`);
  if (values.region !== undefined) regionArg(values.region);
  const common: CommonArgs = {
    dryRun: values['dry-run'] === true,
    ...(rate === undefined ? {} : { ratePerSecond: rate }),
    ...(max === undefined ? {} : { maxMessages: max }),
    ...(values.endpoint === undefined ? {} : { endpoint: values.endpoint }),
    ...(values.region === undefined ? {} : { region: values.region }),
  };
  const filter = filterFromArgs(values);
  const filterSpread = filter === undefined ? {} : { filter };
  const allow = (flags: readonly string[]) => {
    for (const flag of ['queue-url', 'to', 'bucket', 'prefix', 'topic-arns', 'config', 'relay-dlq-url', 'streams-endpoint'] as const) {
      if (values[flag] !== undefined && !flags.includes(flag))
        throw new RedriveOptionsError(`--${flag}`, `does not apply to ${kind}; allowed: ${flags.map((f) => `--${f}`).join(', ')}`);
    }
  };
  if (kind === 'relay-dlq') {
    allow(['queue-url', 'topic-arns', 'config']);
    return {
      ...common,
      kind,
      queueUrl: queueUrlOf(values['queue-url'], '--queue-url', kind),
      topicArns: topicArnsOf(values['topic-arns'], env, topicArnsEnv),
      ...configFileOf(values.config),
      ...filterSpread,
    };
  }
  if (kind === 'queue-dlq') {
    allow(['queue-url', 'to']);
    return {
      ...common,
      kind,
      queueUrl: queueUrlOf(values['queue-url'], '--queue-url', kind),
      targetQueueUrl: queueUrlOf(values.to, '--to', kind),
      ...filterSpread,
    };
  }
  allow(['queue-url', 'bucket', 'prefix', 'topic-arns', 'config', 'relay-dlq-url', 'streams-endpoint']);
  if (filter !== undefined) {
    const given = Object.keys(FILTER_OPTIONS).filter((name) => values[name as keyof typeof FILTER_OPTIONS] !== undefined);
    throw new RedriveOptionsError(
      `--${given[0]}`,
      'does not apply to on-failure (a record holds a batch of events); allowed: the filters with relay-dlq and queue-dlq',
    );
  }
  if ((values['queue-url'] === undefined) === (values.bucket === undefined)) {
    throw new RedriveOptionsError(
      '--queue-url/--bucket',
      `${values.bucket === undefined ? 'neither given' : 'both given'}; allowed: exactly one, --queue-url for an SQS destination or --bucket for an S3 destination`,
    );
  }
  if (values.prefix !== undefined && values.bucket === undefined) {
    throw new RedriveOptionsError(
      '--prefix',
      `got ${showValue(values.prefix)} without --bucket; allowed: --prefix only with --bucket (the key prefix of an S3 destination)`,
    );
  }
  const source =
    values.bucket !== undefined
      ? { bucket: bucketOf(values.bucket), ...(values.prefix === undefined ? {} : { prefix: values.prefix }) }
      : { queueUrl: queueUrlOf(values['queue-url'], '--queue-url', 'on-failure') };
  return {
    ...common,
    kind: 'on-failure',
    source,
    topicArns: topicArnsOf(values['topic-arns'], env, topicArnsEnv),
    ...configFileOf(values.config),
    ...relayDlqUrlOf(values['relay-dlq-url'], env),
    ...(streamsEndpoint === undefined ? {} : { streamsEndpoint }),
  };
}
