import { awsSetupHint, type GivenResources } from '../cli-aws-hint.js';
import type { RedriveCommand } from './cli-args.js';
import type { DlqCommand } from './dlq-cli.js';

type RunCommand = Exclude<RedriveCommand, { kind: 'help' }> | Exclude<DlqCommand, { kind: 'dlq-help' }>;

/** The queues and bucket a redrive or `dlq summarize` names, as the flags that named them. */
function given(command: RunCommand): GivenResources {
  const endpoint = { endpoint: command.endpoint };
  switch (command.kind) {
    case 'relay-dlq':
    case 'dlq-summarize':
      return { queues: `--queue-url ${command.queueUrl}`, ...endpoint };
    case 'queue-dlq':
      return { queues: `--queue-url ${command.queueUrl}, --to ${command.targetQueueUrl}`, ...endpoint };
    case 'on-failure':
      return 'bucket' in command.source
        ? { bucket: `--bucket ${command.source.bucket}`, ...endpoint }
        : { queues: `--queue-url ${command.source.queueUrl}`, ...endpoint };
  }
}

/** {@link awsSetupHint} for a parsed redrive or `dlq summarize` command, naming its flags. */
export const awsErrorHint = (error: unknown, command: RunCommand): string | undefined => awsSetupHint(error, given(command));
