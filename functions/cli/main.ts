#!/usr/bin/env node
import { REPLAY_USAGE } from '../../shared/archive/replay-cli.js';
import { withHint } from '../../shared/cli-aws-hint.js';
import { errorMessage } from '../../shared/error-message.js';
import { EnvironmentError, OutboxError } from '../../shared/errors.js';
import { RELAY_ENV } from '../../shared/event-source.js';
import { awsErrorHint } from '../../shared/redrive/aws-error-hint.js';
import { REDRIVE_USAGE } from '../../shared/redrive/cli-args.js';
import { CLI_USAGE, type CliCommand, parseCommandLine, usageFor } from '../../shared/redrive/cli-command.js';
import type { ConfiguredRedrive } from '../../shared/redrive/cli-config.js';
import { DLQ_USAGE, type DlqCommand } from '../../shared/redrive/dlq-cli.js';
import { RedriveOptionsError, RedriveStoppedError } from '../../shared/redrive/errors.js';
import { formatSummary } from '../../shared/redrive/summary.js';
import type { RedriveSummary } from '../../shared/redrive/types.js';
import { packageVersion } from './version.js';

// The AWS SDK clients and the code of each command load only for the command that runs: loading
// them all would cost every start, `--help` and a refused argument included, a few tenths of a second.

// The SDK's notice that its future releases need Node 22 would open every run's output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// A reader that stops early (`| head`, a pager quit) closes the pipe: the rest of the output has no
// one to read it, which is no failure of the command and no reason for a stack trace. The run ends
// as it would have, with its own exit status.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
  });
}

/** Exit status of a run ended by Ctrl-C (SIGINT) or SIGTERM, as a shell reports 128 + SIGINT. */
const INTERRUPTED_EXIT = 130;
/**
 * Exit status of a redrive that failed nothing but skipped messages: they stay in the source (the
 * summary gives each reason). Most cannot be redriven as they are; an on-failure record whose
 * stream or S3 object could not be read may move on a later run. Messages a filter did not match
 * are not skipped.
 */
const SKIPPED_EXIT = 3;

/**
 * The first SIGINT or SIGTERM aborts the run after its current batch, so the kept messages are
 * released and the partial summary printed; a second one exits at once (the kept messages then
 * come back by themselves when their visibility timeout runs out).
 */
function stopOnSignals(
  stopping = 'stopping after the current batch and releasing the messages kept back',
  leftBehind = 'messages kept back become visible when their timeout runs out',
): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  let first: NodeJS.Signals | undefined;
  const onSignal = (name: NodeJS.Signals) => {
    if (first !== undefined) {
      process.stderr.write(`\n${name} after ${first}: exiting at once; ${leftBehind}\n`);
      process.exit(INTERRUPTED_EXIT);
    }
    first = name;
    process.stderr.write(`\n${name}: ${stopping} (again to exit at once)\n`);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

async function run(command: ConfiguredRedrive, signal: AbortSignal): Promise<RedriveSummary> {
  const [{ snsClient, sqsClient }, { progressBar }, { redriveRegion }, { cliClientConfig, cliS3Config }] = await Promise.all([
    import('../../shared/aws/messaging-clients.js'),
    import('../../shared/redrive/progress.js'),
    import('../../shared/redrive/cli-region.js'),
    import('../../shared/cli-region.js'),
  ]);
  // --region, else the queue URLs' Region: a client signs for its own Region whatever host it sends to.
  const region = await redriveRegion(command, process.env);
  const clientConfig = cliClientConfig(region, command.endpoint);
  const sqs = sqsClient(clientConfig);
  const sns = snsClient(clientConfig);
  const bar = progressBar(process.stderr);
  const common = {
    dryRun: command.dryRun,
    onProgress: bar.update,
    signal,
    ...(command.ratePerSecond === undefined ? {} : { ratePerSecond: command.ratePerSecond }),
    ...(command.maxMessages === undefined ? {} : { maxMessages: command.maxMessages }),
  };
  try {
    switch (command.kind) {
      case 'relay-dlq': {
        const { redriveRelayDlq } = await import('../../shared/redrive/relay-dlq.js');
        // The config routes a dead letter written without a topic (no route then) by its aggregate type.
        return await redriveRelayDlq({
          ...common,
          sqs,
          sns,
          queueUrl: command.queueUrl,
          topicArns: command.topicArns,
          ...(command.config === undefined ? {} : { config: command.config }),
          ...(command.filter === undefined ? {} : { filter: command.filter }),
        });
      }
      case 'queue-dlq': {
        const { redriveQueueDlq } = await import('../../shared/redrive/queue-dlq.js');
        return await redriveQueueDlq({
          ...common,
          sqs,
          queueUrl: command.queueUrl,
          targetQueueUrl: command.targetQueueUrl,
          ...(command.filter === undefined ? {} : { filter: command.filter }),
        });
      }
      case 'on-failure': {
        const [{ redriveOnFailure }, { s3Client }, { streamsClient }] = await Promise.all([
          import('../../shared/redrive/on-failure.js'),
          import('../../shared/aws/s3-client.js'),
          import('../../shared/aws/streams-client.js'),
        ]);
        // DynamoDB Local serves the stream on a port of its own, apart from the SNS/SQS/S3 emulator.
        const streams = streamsClient(
          command.streamsEndpoint === undefined ? clientConfig : { ...clientConfig, endpoint: command.streamsEndpoint },
        );
        // The bucket may be in another Region than the run's: S3's redirect to it is followed.
        const source =
          'bucket' in command.source
            ? { ...command.source, s3: s3Client(cliS3Config(region, command.endpoint)) }
            : { ...command.source, sqs };
        return await redriveOnFailure({
          ...common,
          source,
          sns,
          streams,
          config: command.config,
          topicArns: command.topicArns,
          // What the relay dead-letters goes to its DLQ, and the record moves.
          ...(command.relayDlqUrl === undefined ? {} : { deadLetterQueue: { queueUrl: command.relayDlqUrl, sqs } }),
        });
      }
    }
  } finally {
    bar.done();
  }
}

/** The command-line flag of each option the redrive functions check. */
const FLAGS: Readonly<Record<string, string>> = {
  targetQueueUrl: '--to',
  queueUrl: '--queue-url',
  maxMessages: '--max',
  ratePerSecond: '--rate',
  topicArns: '--topic-arns',
  'deadLetterQueue.queueUrl': '--relay-dlq-url',
};

/** A refusal of the redrive functions as the command line gave it: `topicArns.payments` is `--topic-arns` (payments). */
function asFlag(error: RedriveOptionsError): string {
  const [option, ...path] = error.field.split('.');
  const whole = FLAGS[error.field];
  const flag = whole ?? FLAGS[option as string];
  if (flag === undefined) return error.message;
  return error.restated({ field: whole !== undefined || path.length === 0 ? flag : `${flag} (${path.join('.')})` }).message;
}

/** `dlq summarize`: the table (or JSON) on stdout; every message read is visible again when it returns. */
async function summarize(command: Extract<DlqCommand, { kind: 'dlq-summarize' }>): Promise<number> {
  const [{ sqsClient }, { summarizeDlq }, { formatDlqSummary }, { summarizeRegion }, { cliClientConfig, regionOrExit }] = await Promise.all(
    [
      import('../../shared/aws/messaging-clients.js'),
      import('../../shared/redrive/dlq-summary.js'),
      import('../../shared/redrive/dlq-summary-format.js'),
      import('../../shared/redrive/cli-region.js'),
      import('../../shared/cli-region.js'),
    ],
  );
  // AWS_REGION or the profile naming another Region than the queue's: a usage error, before any call.
  const resolved = await regionOrExit(summarizeRegion(command, process.env), RedriveOptionsError, process.stderr);
  if ('exitCode' in resolved) return resolved.exitCode;
  const sqs = sqsClient(cliClientConfig(resolved.region, command.endpoint));
  const stop = stopOnSignals();
  try {
    const summary = await summarizeDlq({
      sqs,
      queueUrl: command.queueUrl,
      signal: stop.signal,
      ...(command.maxMessages === undefined ? {} : { maxMessages: command.maxMessages }),
      ...(command.filter === undefined ? {} : { filter: command.filter }),
    });
    process.stdout.write(`${command.json ? JSON.stringify(summary, null, 2) : formatDlqSummary(summary)}\n`);
    return summary.status === 'interrupted' ? INTERRUPTED_EXIT : 0;
  } catch (error) {
    const code = error instanceof OutboxError ? ` [${error.code}]` : '';
    const hint = awsErrorHint(error, command);
    process.stderr.write(`dlq summarize stopped${code}: ${withHint(errorMessage(error), hint)}\n`);
    return 1;
  } finally {
    stop.dispose();
  }
}

async function main(argv: readonly string[]): Promise<number> {
  let command: CliCommand;
  try {
    command = parseCommandLine(argv, process.env, RELAY_ENV.topicArns);
  } catch (error) {
    process.stderr.write(`${errorMessage(error)}\n\n${usageFor(error, argv)}\n`);
    return 2;
  }
  if (command.kind === 'version') {
    const version = packageVersion();
    if (version !== undefined) {
      process.stdout.write(`${version}\n`);
      return 0;
    }
    process.stderr.write('dynamodb-outbox: no package.json of dynamodb-outbox above this command, so its version is unknown\n');
    return 1;
  }
  if (command.kind === 'usage' || command.kind === 'help') {
    process.stdout.write(`${command.kind === 'usage' ? CLI_USAGE : REDRIVE_USAGE}\n`);
    return 0;
  }
  if (command.kind === 'dlq-help') {
    process.stdout.write(`${DLQ_USAGE}\n`);
    return 0;
  }
  if (command.kind === 'dlq-summarize') return summarize(command);
  if (command.kind === 'replay-help') {
    process.stdout.write(`${REPLAY_USAGE}\n`);
    return 0;
  }
  if (command.kind === 'replay') {
    const stop = stopOnSignals(
      'stopping after the batches in flight; the checkpoint keeps the position',
      'the checkpoint has every batch acknowledged',
    );
    try {
      const { runReplayCommand } = await import('../../shared/archive/replay-command.js');
      return await runReplayCommand(command, stop.signal);
    } finally {
      stop.dispose();
    }
  }
  if (command.kind === 'catalog' || command.kind === 'catalog-check' || command.kind === 'catalog-help') {
    const { runCatalogCommand } = await import('../../shared/catalog/cli.js');
    return runCatalogCommand(command);
  }
  let configured: ConfiguredRedrive;
  try {
    const { withRedriveConfig } = await import('../../shared/redrive/cli-config.js');
    configured = await withRedriveConfig(command, process.env);
  } catch (error) {
    // A config missing or refused, from --config or $OUTBOX_CONFIG: a usage error, before anything was read.
    if (!(error instanceof RedriveOptionsError || error instanceof EnvironmentError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 2;
  }
  const stop = stopOnSignals();
  try {
    const summary = await run(configured, stop.signal);
    process.stdout.write(`${formatSummary(summary)}\n`);
    if (summary.status === 'interrupted') return INTERRUPTED_EXIT;
    if (summary.failed.length > 0) return 1;
    return summary.skipped.length > 0 ? SKIPPED_EXIT : 0;
  } catch (error) {
    // Refused before anything was read: a usage error, named by the flag that was typed.
    if (error instanceof RedriveOptionsError) {
      process.stderr.write(`${asFlag(error)}\n`);
      return 2;
    }
    const code = error instanceof OutboxError ? ` [${error.code}]` : '';
    const hint = awsErrorHint(error, command);
    process.stderr.write(`Redrive stopped${code}: ${withHint(errorMessage(error), hint)}\n`);
    // What was done before the error: a person must know what moved before running it again.
    if (error instanceof RedriveStoppedError) process.stdout.write(`${formatSummary(error.summary)}\n`);
    return 1;
  } finally {
    stop.dispose();
  }
}

process.exitCode = await main(process.argv.slice(2));
