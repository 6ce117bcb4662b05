import { errorName } from '../aws/error-name.js';
import type { RedriveCommand } from './cli-args.js';
import type { DlqCommand } from './dlq-cli.js';

type RunCommand = Exclude<RedriveCommand, { kind: 'help' }> | Exclude<DlqCommand, { kind: 'dlq-help' }>;

/** The queues and bucket the command names, as the flags that named them. */
function sources(command: RunCommand): string {
  switch (command.kind) {
    case 'relay-dlq':
    case 'dlq-summarize':
      return `--queue-url ${command.queueUrl}`;
    case 'queue-dlq':
      return `--queue-url ${command.queueUrl}, --to ${command.targetQueueUrl}`;
    case 'on-failure':
      return 'bucket' in command.source ? `--bucket ${command.source.bucket}` : `--queue-url ${command.source.queueUrl}`;
  }
}

/**
 * What to do about an AWS error that stopped a run because of how the tool was set up (no
 * region, no credentials, a queue that does not exist), or `undefined` for any other error:
 * the SDK's own words name neither the flag nor the fix.
 *
 * @example
 * ```ts
 * const hint = awsErrorHint(error, command);
 * process.stderr.write(`Redrive stopped: ${(error as Error).message}${hint === undefined ? '' : `; ${hint}`}\n`);
 * ```
 */
export function awsErrorHint(error: unknown, command: RunCommand): string | undefined {
  const name = errorName(error);
  const message = (error as { readonly message?: unknown } | null)?.message;
  const endpoint = command.endpoint === undefined ? '' : ` and --endpoint ${command.endpoint}`;
  if (name === 'QueueDoesNotExist' || name === 'AWS.SimpleQueueService.NonExistentQueue') {
    return `a queue given does not exist (${sources(command)}); allowed: URLs of existing queues, in the region${endpoint} the tool uses (--region, or AWS_REGION)`;
  }
  if (name === 'NoSuchBucket') return `the bucket does not exist (${sources(command)}); allowed: an existing bucket's name`;
  if (message === 'Region is missing') return 'no AWS region is set; allowed: --region NAME, or AWS_REGION in the environment';
  if (name === 'CredentialsProviderError') {
    return 'no AWS credentials were found; allowed: AWS_PROFILE, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a role of the machine';
  }
  return undefined;
}
