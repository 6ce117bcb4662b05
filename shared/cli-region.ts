/**
 * The AWS Region the CLI's commands (redrive, dlq summarize, replay) sign for, given the queue URLs
 * they were given: the SDK's SQS client sends a call to its queue URL's host but signs it for its
 * own Region, so a Region other than the queue's fails only at the first call, with a signature
 * error, and no Region at all fails with "Region is missing" although the URL names one. The SNS
 * client routes by nothing in the call: a publish goes to its own Region's endpoint, signed for it,
 * whatever Region the topic ARN names, so a topic of another Region fails only at the first publish,
 * after messages were received and held.
 */
import { loadSharedConfigFiles } from '@smithy/core/config';
import { sqsQueueUrlRegion } from './aws/sqs-queue-region.js';
import { showValue } from './show-value.js';

/** A queue URL a command was given, with the flag (or variable) that gave it: `--queue-url`. */
export interface GivenQueueUrl {
  readonly flag: string;
  readonly url: string;
}

/** What a command was given for its AWS clients. */
export interface GivenRegion {
  /** `--region`, if given. */
  readonly region?: string | undefined;
  /** `--endpoint`, if given: every call goes there (a local emulator), whatever the queue URLs' hosts. */
  readonly endpoint?: string | undefined;
}

/**
 * An ARN a command was given for a resource its client does not route by (an SNS topic's): the
 * call goes to the run's Region, so the ARN's Region must be the run's.
 */
export interface GivenArn {
  /** The option that gave it, as refusals name it: `--topic-arns`. */
  readonly field: string;
  /** What it is, as a refusal names it: `topic "orders"`. */
  readonly name: string;
  readonly arn: string;
  /** Where the option's value came from when not typed: ` (from OUTBOX_TOPIC_ARNS)`; else `''`. */
  readonly from: string;
}

/** The command's refusal of an option: its own typed error, naming `field`. */
export type RegionRefusal = (field: string, detail: string) => Error;

/** The queue URL that names the Region, and the Region. */
interface NamedRegion extends GivenQueueUrl {
  readonly region: string;
}

const shown = ({ flag, url }: GivenQueueUrl) => `${flag} ${showValue(url)}`;

/** The run's Region, and what named it (`named by --queue-url "…"`). */
interface RunRegion {
  readonly region: string;
  readonly from: string;
}

/**
 * The Region a Region name stands for, as the SDK's client takes it (its `getRealRegion`): a FIPS
 * pseudo-Region, `fips-us-east-1` or `us-east-1-fips`, is `us-east-1`, reached by its FIPS
 * endpoints and signed for `us-east-1`.
 */
function realRegion(region: string): string {
  if (!region.startsWith('fips-') && !region.endsWith('-fips')) return region;
  return region === 'fips-aws-global' || region === 'aws-fips' ? 'us-east-1' : region.replace(/fips-(dkr-|prod-)?|-fips/, '');
}

/** The Region an ARN names (`arn:aws:sns:eu-west-1:…` is in `eu-west-1`); `undefined` when it names none. */
const arnRegion = (arn: string): string | undefined => arn.split(':')[3] || undefined;

/** The Region `--region` or the queue URLs give the run, and what gave it; `undefined` when neither does. */
function givenRun(region: string | undefined, named: NamedRegion | undefined): RunRegion | undefined {
  if (region !== undefined) return { region, from: 'given by --region' };
  return named === undefined ? undefined : { region: named.region, from: `named by ${shown(named)}` };
}

/** The Region the first ARN naming one gives the run, when nothing else does. */
function firstArnRun(arns: readonly GivenArn[]): RunRegion | undefined {
  for (const given of arns) {
    const region = arnRegion(given.arn);
    if (region !== undefined) return { region, from: `named by ${given.name} of ${given.field}${given.from}` };
  }
  return undefined;
}

/**
 * Refuses the first ARN whose Region is not the run's, naming it, its Region, the run's Region and
 * what named that; `instead` says what else would do.
 */
function checkArns(arns: readonly GivenArn[], run: RunRegion, refuse: RegionRefusal, instead = ''): void {
  const runRegion = realRegion(run.region);
  for (const given of arns) {
    const region = arnRegion(given.arn);
    if (region === undefined || region === runRegion) continue;
    throw refuse(
      given.field,
      `${given.name} has ${showValue(given.arn)}${given.from}, in ${region}, where the run's Region is ${run.region}, ${run.from}; allowed: an ARN in ${runRegion}${instead}, as its client sends every call to the run's Region, signed for it, whatever Region the ARN names (or --endpoint for a local emulator)`,
    );
  }
}

/**
 * The Region the queue URLs name, checked before any AWS call: `undefined` when `--endpoint` is
 * given (the calls go there, as before) or no URL names one (a local endpoint's); a refusal when
 * two of them name different Regions, or `--region` names another.
 *
 * @example
 * ```ts
 * queuesRegion([{ flag: '--queue-url', url }], { region: values.region }, (field, detail) => new RedriveOptionsError(field, detail));
 * ```
 */
export const queuesRegion = (queues: readonly GivenQueueUrl[], given: GivenRegion, refuse: RegionRefusal): string | undefined =>
  namedRegion(queues, given, refuse)?.region;

function namedRegion(queues: readonly GivenQueueUrl[], { region, endpoint }: GivenRegion, refuse: RegionRefusal): NamedRegion | undefined {
  if (endpoint !== undefined) return undefined;
  let first: NamedRegion | undefined;
  for (const queue of queues) {
    const named = sqsQueueUrlRegion(queue.url);
    if (named === undefined) continue;
    if (first === undefined) first = { ...queue, region: named };
    else if (named !== first.region) {
      throw refuse(
        queue.flag,
        `got ${showValue(queue.url)}, a queue in ${named}, where ${shown(first)} is in ${first.region}; allowed: queues of one Region, as every call of the run is signed for one (or --endpoint for a local emulator)`,
      );
    }
  }
  if (first !== undefined && region !== undefined && realRegion(region) !== first.region) {
    throw refuse(
      '--region',
      `got ${showValue(region)}, where ${shown(first)} is a queue in ${first.region}; allowed: ${first.region}, or no --region (the queue URL's Region is taken)`,
    );
  }
  return first;
}

/**
 * The shared config and credentials files as the SDK reads them (`AWS_CONFIG_FILE`,
 * `AWS_SHARED_CREDENTIALS_FILE`, else `~/.aws/`), and the profile `AWS_PROFILE` names (`default`).
 */
export async function sharedProfile(env: NodeJS.ProcessEnv) {
  const files = await loadSharedConfigFiles({
    ...(env.AWS_SHARED_CREDENTIALS_FILE ? { filepath: env.AWS_SHARED_CREDENTIALS_FILE } : {}),
    ...(env.AWS_CONFIG_FILE ? { configFilepath: env.AWS_CONFIG_FILE } : {}),
    ignoreCache: true,
  });
  return { ...files, profile: env.AWS_PROFILE || 'default' };
}

/** The Region the SDK would take without `--region`, and where from; `undefined` when none is set. */
async function configuredRegion(env: NodeJS.ProcessEnv): Promise<{ region: string; from: string } | undefined> {
  const fromEnv = env.AWS_REGION;
  if (fromEnv !== undefined && fromEnv !== '') return { region: fromEnv, from: 'AWS_REGION' };
  // The SDK's order: the profile's region in the credentials file, else in the config file.
  const { configFile, credentialsFile, profile } = await sharedProfile(env);
  const region = credentialsFile[profile]?.region ?? configFile[profile]?.region;
  return region === undefined || region === '' ? undefined : { region, from: `the region of AWS profile ${showValue(profile)}` };
}

/**
 * The Region for a command's clients, before any AWS call: `--region` if given, else the Region
 * the queue URLs name ({@link queuesRegion}), else the SDK's own (AWS_REGION, the profile's: then
 * `undefined`), else the Region the ARNs (`arns`, a redrive's topics) name. With a URL naming a
 * Region and no `--region`, a Region set in AWS_REGION or the profile that differs is refused,
 * naming where it was set: the run would fail at its first call. An ARN whose Region is not the
 * run's is refused (see {@link queuesRegion}). With `--endpoint`, `undefined` unless `--region` is
 * given, as before.
 *
 * @example
 * ```ts
 * const region = await cliRegion([{ flag: '--queue-url', url }], command, process.env, refuse);
 * const sqs = sqsClient({ ...(region === undefined ? {} : { region }) });
 * ```
 */
export async function cliRegion(
  queues: readonly GivenQueueUrl[],
  given: GivenRegion,
  env: NodeJS.ProcessEnv,
  refuse: RegionRefusal,
  arns: readonly GivenArn[] = [],
): Promise<string | undefined> {
  const named = namedRegion(queues, given, refuse);
  if (given.endpoint !== undefined) return given.region;
  const run = givenRun(given.region, named);
  if (run !== undefined) checkArns(arns, run, refuse);
  if (given.region !== undefined) return given.region;
  if (named === undefined) return arnsRegion(arns, env, refuse);
  const configured = await configuredRegion(env);
  if (configured !== undefined && realRegion(configured.region) !== named.region) {
    throw refuse(
      '--region',
      `none given, and ${configured.from} is ${showValue(configured.region)}, where ${shown(named)} is a queue in ${named.region}; allowed: --region ${named.region}, or ${configured.from} set to ${named.region} (each call is signed for the tool's Region and sent to the queue URL's host, which refuses another Region's signature)`,
    );
  }
  // The SDK's own Region when it is the queue's (a FIPS pseudo-Region kept: its FIPS endpoints).
  return configured?.region ?? named.region;
}

/**
 * The run's Region when neither `--region` nor a queue URL names one: the SDK's own (`undefined`)
 * when AWS_REGION or the profile sets one, every ARN refused that names another; else the Region
 * the ARNs name, which must be one.
 */
async function arnsRegion(arns: readonly GivenArn[], env: NodeJS.ProcessEnv, refuse: RegionRefusal): Promise<string | undefined> {
  const first = firstArnRun(arns);
  if (first === undefined) return undefined;
  checkArns(arns, first, refuse);
  const configured = await configuredRegion(env);
  if (configured === undefined) return first.region;
  const run = { region: configured.region, from: `from ${configured.from} (no --region given, and no queue URL names one)` };
  checkArns(
    arns,
    run,
    refuse,
    `, or --region ${first.region} (or ${configured.from} set to ${first.region}) for ARNs all in ${first.region}`,
  );
  return undefined;
}

/** A CLI run's Region (`undefined`: the SDK's own), or the exit status of its refusal. */
export type RegionOrExit = { readonly region: string | undefined } | { readonly exitCode: number };

/**
 * The Region `resolving` ({@link cliRegion}) gives a command, or, when it refuses it with the
 * command's `refusal` (AWS_REGION or the profile naming another Region than the queue's), a usage
 * error before any AWS call: its message written to `stderr` and exit status 2. Anything else is
 * thrown on.
 *
 * @example
 * ```ts
 * const resolved = await regionOrExit(cliRegion(queues, command, process.env, refuse), ReplayOptionsError, process.stderr);
 * if ('exitCode' in resolved) return resolved.exitCode;
 * ```
 */
export async function regionOrExit(
  resolving: Promise<string | undefined>,
  refusal: new (...args: never[]) => Error,
  stderr: { write(text: string): boolean },
): Promise<RegionOrExit> {
  try {
    return { region: await resolving };
  } catch (error) {
    if (!(error instanceof refusal)) throw error;
    stderr.write(`${error.message}\n`);
    return { exitCode: 2 };
  }
}

/** What a CLI run's SNS, SQS and DynamoDB Streams clients are made with. */
export interface CliClientConfig {
  readonly region?: string;
  readonly endpoint?: string;
}

/**
 * The config of a CLI run's clients: the run's Region (`undefined`: the SDK's own) and `--endpoint`
 * (`undefined`: the SDK's), each left out when not given.
 *
 * @example
 * ```ts
 * const sqs = sqsClient(cliClientConfig(region, command.endpoint));
 * ```
 */
export const cliClientConfig = (region: string | undefined, endpoint: string | undefined): CliClientConfig => ({
  ...(region === undefined ? {} : { region }),
  ...(endpoint === undefined ? {} : { endpoint }),
});

/** What a CLI run's S3 client is made with (an `S3ClientConfig`). */
export interface CliS3Config extends CliClientConfig {
  readonly forcePathStyle: boolean;
  readonly followRegionRedirects: boolean;
}

/**
 * The config of a CLI run's S3 client (replay's `--archive-bucket`, redrive on-failure's
 * `--bucket`): the run's Region (`undefined`: the SDK's own), and the bucket's when it is in
 * another. S3 answers a call for a bucket of another Region with a redirect that names the
 * bucket's (301, `x-amz-bucket-region`), which the SDK's client returns as an error unless it
 * follows redirects: then it sends the call again to that Region, signed for it. With `--endpoint`
 * (a local emulator) every call goes there, path-style, and no redirect is followed.
 *
 * @example
 * ```ts
 * const s3 = s3Client(cliS3Config(region, command.endpoint));
 * ```
 */
export const cliS3Config = (region: string | undefined, endpoint: string | undefined): CliS3Config => ({
  ...cliClientConfig(region, endpoint),
  forcePathStyle: endpoint !== undefined,
  followRegionRedirects: endpoint === undefined,
});
