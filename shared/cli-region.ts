/**
 * The AWS Region the CLI's commands (redrive, dlq summarize, replay) sign for, given the queue URLs
 * they were given: the SDK's SQS client sends a call to its queue URL's host but signs it for its
 * own Region, so a Region other than the queue's fails only at the first call, with a signature
 * error, and no Region at all fails with "Region is missing" although the URL names one.
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

/** The command's refusal of an option: its own typed error, naming `field`. */
export type RegionRefusal = (field: string, detail: string) => Error;

/** The queue URL that names the Region, and the Region. */
interface NamedRegion extends GivenQueueUrl {
  readonly region: string;
}

const shown = ({ flag, url }: GivenQueueUrl) => `${flag} ${showValue(url)}`;

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
export function queuesRegion(queues: readonly GivenQueueUrl[], given: GivenRegion, refuse: RegionRefusal): string | undefined {
  return namedRegion(queues, given, refuse)?.region;
}

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
  if (first !== undefined && region !== undefined && region !== first.region) {
    throw refuse(
      '--region',
      `got ${showValue(region)}, where ${shown(first)} is a queue in ${first.region}; allowed: ${first.region}, or no --region (the queue URL's Region is taken)`,
    );
  }
  return first;
}

/** The Region the SDK would take without `--region`, and where from; `undefined` when none is set. */
async function configuredRegion(env: NodeJS.ProcessEnv): Promise<{ region: string; from: string } | undefined> {
  const fromEnv = env.AWS_REGION;
  if (fromEnv !== undefined && fromEnv !== '') return { region: fromEnv, from: 'AWS_REGION' };
  // The SDK's order: the profile's region in the credentials file, else in the config file.
  const profile = env.AWS_PROFILE || 'default';
  const { configFile, credentialsFile } = await loadSharedConfigFiles({
    ...(env.AWS_SHARED_CREDENTIALS_FILE ? { filepath: env.AWS_SHARED_CREDENTIALS_FILE } : {}),
    ...(env.AWS_CONFIG_FILE ? { configFilepath: env.AWS_CONFIG_FILE } : {}),
    ignoreCache: true,
  });
  const region = credentialsFile[profile]?.region ?? configFile[profile]?.region;
  return region === undefined || region === '' ? undefined : { region, from: `the region of AWS profile ${showValue(profile)}` };
}

/**
 * The Region for a command's clients, before any AWS call: `--region` if given, else the Region
 * the queue URLs name ({@link queuesRegion}), else `undefined` (the SDK's own: AWS_REGION, the
 * profile's, the instance's). With a URL naming a Region and no `--region`, a Region set in
 * AWS_REGION or the profile that differs is refused, naming where it was set: the run would fail
 * at its first call. With `--endpoint`, `undefined` unless `--region` is given, as before.
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
): Promise<string | undefined> {
  const named = namedRegion(queues, given, refuse);
  if (given.region !== undefined || named === undefined) return given.region;
  const configured = await configuredRegion(env);
  if (configured !== undefined && configured.region !== named.region) {
    throw refuse(
      '--region',
      `none given, and ${configured.from} is ${showValue(configured.region)}, where ${shown(named)} is a queue in ${named.region}; allowed: --region ${named.region}, or ${configured.from} set to ${named.region} (each call is signed for the tool's Region and sent to the queue URL's host, which refuses another Region's signature)`,
    );
  }
  return named.region;
}
