/**
 * What the commands of the `dynamodb-outbox` CLI say about an AWS error that stopped them because
 * of how they were set up, by the flags they were given (redrive, dlq summarize, replay).
 */
import { errorName } from './aws/error-name.js';

/** What a command was given to reach AWS, as its flags name it, for the hint of an error of its set-up. */
export interface GivenResources {
  /** The queues, as typed with their flags: `--queue-url URL, --to URL`. */
  readonly queues?: string;
  /** The bucket, as typed with its flag: `--bucket NAME`. */
  readonly bucket?: string;
  readonly endpoint?: string | undefined;
}

/** The hint for one error of the chain, or `undefined`. */
function hintOf(error: unknown, { queues, bucket, endpoint }: GivenResources): string | undefined {
  const name = errorName(error);
  const message = (error as { readonly message?: unknown } | null)?.message;
  if (name === 'QueueDoesNotExist' || name === 'AWS.SimpleQueueService.NonExistentQueue') {
    const at = endpoint === undefined ? '' : ` and --endpoint ${endpoint}`;
    return `a queue given does not exist (${queues ?? 'none given'}); allowed: URLs of existing queues, in the region${at} the tool uses (--region, or AWS_REGION)`;
  }
  if (name === 'NoSuchBucket') return `the bucket does not exist (${bucket ?? 'none given'}); allowed: an existing bucket's name`;
  if (message === 'Region is missing') return 'no AWS region is set; allowed: --region NAME, or AWS_REGION in the environment';
  if ((error as { readonly code?: unknown }).code === 'ECONNREFUSED' && endpoint !== undefined) {
    return `nothing answers at --endpoint ${endpoint}; allowed: the address of a running emulator (as its banner gives it), or no --endpoint for AWS itself`;
  }
  if (name === 'CredentialsProviderError') {
    return 'no AWS credentials were found; allowed: AWS_PROFILE, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a role of the machine';
  }
  return undefined;
}

/**
 * What to do about an AWS error that stopped a command because of how it was set up (no region,
 * no credentials, a queue or bucket that does not exist, an endpoint where nothing answers), found
 * in the error or its causes (a run stopped part way wraps the SDK's error), or `undefined` for any
 * other error: the SDK's own words name neither the flag nor the fix.
 *
 * @example
 * ```ts
 * const hint = awsSetupHint(error, { queues: `--to-queue ${url}`, bucket: `--archive-bucket ${bucket}` });
 * process.stderr.write(`Replay stopped: ${withHint(errorMessage(error), hint)}\n`);
 * ```
 */
export function awsSetupHint(error: unknown, resources: GivenResources): string | undefined {
  let current = error;
  // A few causes deep at most: a chain is short, and one that loops must still end.
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth++) {
    const hint = hintOf(current, resources);
    if (hint !== undefined) return hint;
    current = (current as { readonly cause?: unknown }).cause;
  }
  return undefined;
}

/** An error's message and the hint, if any, after it (`…does not exist; a queue given …`, without the SDK's full stop before the semicolon). */
export const withHint = (message: string, hint: string | undefined): string =>
  hint === undefined ? message : `${message.replace(/\.$/, '')}; ${hint}`;
