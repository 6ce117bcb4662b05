import { S3Client } from '@aws-sdk/client-s3';
import { config as appConfig } from '../../outbox.config.js';
import { snsClient, sqsClient, streamsClient } from '../../shared/aws/clients.js';
import { CONFIG_ENV, configFromEnv } from '../../shared/config.js';
import { OutboxError } from '../../shared/errors.js';
import { RELAY_ENV } from '../../shared/event-source.js';
import { parseRedriveArgs, REDRIVE_USAGE, type RedriveCommand } from '../../shared/redrive/cli-args.js';
import { redriveOnFailure } from '../../shared/redrive/on-failure.js';
import { progressBar } from '../../shared/redrive/progress.js';
import { redriveQueueDlq } from '../../shared/redrive/queue-dlq.js';
import { redriveRelayDlq } from '../../shared/redrive/relay-dlq.js';
import { formatSummary } from '../../shared/redrive/summary.js';
import type { RedriveSummary } from '../../shared/redrive/types.js';

async function run(command: Exclude<RedriveCommand, { kind: 'help' }>): Promise<RedriveSummary> {
  const clientConfig = {
    ...(command.region === undefined ? {} : { region: command.region }),
    ...(command.endpoint === undefined ? {} : { endpoint: command.endpoint }),
  };
  const sqs = sqsClient(clientConfig);
  const sns = snsClient(clientConfig);
  const bar = progressBar(process.stderr);
  const common = {
    dryRun: command.dryRun,
    onProgress: bar.update,
    ...(command.ratePerSecond === undefined ? {} : { ratePerSecond: command.ratePerSecond }),
    ...(command.maxMessages === undefined ? {} : { maxMessages: command.maxMessages }),
  };
  try {
    switch (command.kind) {
      case 'relay-dlq':
        return await redriveRelayDlq({ ...common, sqs, sns, queueUrl: command.queueUrl, topicArns: command.topicArns });
      case 'queue-dlq':
        return await redriveQueueDlq({ ...common, sqs, queueUrl: command.queueUrl, targetQueueUrl: command.targetQueueUrl });
      case 'on-failure': {
        const config = process.env[CONFIG_ENV] ? configFromEnv() : appConfig;
        const streams = streamsClient(clientConfig);
        const source =
          'bucket' in command.source
            ? { ...command.source, s3: new S3Client({ ...clientConfig, forcePathStyle: command.endpoint !== undefined }) }
            : { ...command.source, sqs };
        return await redriveOnFailure({ ...common, source, sns, streams, config, topicArns: command.topicArns });
      }
    }
  } finally {
    bar.done();
  }
}

async function main(argv: readonly string[]): Promise<number> {
  let command: RedriveCommand;
  try {
    command = parseRedriveArgs(argv, process.env, RELAY_ENV.topicArns);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${REDRIVE_USAGE}\n`);
    return 2;
  }
  if (command.kind === 'help') {
    process.stdout.write(`${REDRIVE_USAGE}\n`);
    return 0;
  }
  try {
    const summary = await run(command);
    process.stdout.write(`${formatSummary(summary)}\n`);
    return summary.failed.length > 0 ? 1 : 0;
  } catch (error) {
    const code = error instanceof OutboxError ? ` [${error.code}]` : '';
    process.stderr.write(`Redrive stopped${code}: ${(error as Error).message}\n`);
    return error instanceof OutboxError ? 2 : 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
