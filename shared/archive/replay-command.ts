import { sqsClient } from '../aws/messaging-clients.js';
import { s3Client } from '../aws/s3-client.js';
import { awsSetupHint, withHint } from '../cli-aws-hint.js';
import { cliClientConfig, cliRegion, cliS3Config, regionOrExit } from '../cli-region.js';
import { errorMessage } from '../error-message.js';
import { OutboxError } from '../errors.js';
import { defaultCheckpointPath } from './checkpoint.js';
import { replayArchive } from './replay.js';
import { asReplayFlag, type ReplayCommand } from './replay-cli.js';
import { ReplayCheckpointError, ReplayOptionsError, ReplayStoppedError } from './replay-errors.js';
import { planReplay } from './replay-options.js';
import { formatReplaySummary, replayProgress } from './replay-summary-format.js';
import type { ReplaySummary } from './replay-types.js';

/** Where the command writes: the summary to `stdout`, progress and errors to `stderr`. */
export interface ReplayIo {
  readonly stdout: { write(text: string): boolean };
  readonly stderr: { readonly isTTY?: boolean; write(text: string): boolean };
}

/** Exit status of a run ended by Ctrl-C (SIGINT) or SIGTERM. */
const INTERRUPTED_EXIT = 130;

const refuse = (field: string, detail: string) => new ReplayOptionsError(field, detail);

const print = (io: ReplayIo, summary: ReplaySummary, json: boolean) =>
  io.stdout.write(`${json ? JSON.stringify(summary, null, 2) : formatReplaySummary(summary)}\n`);

/**
 * Runs a parsed `replay` command: the clients from `--region` (else the queue URL's Region, a
 * different one in AWS_REGION or the profile refused with exit status 2) and `--endpoint`, the default
 * checkpoint in the current directory, progress on stderr and the summary on stdout. Returns the
 * exit status `REPLAY_USAGE` documents.
 *
 * @example
 * ```ts
 * process.exitCode = await runReplayCommand(parseReplayArgs(argv), signal);
 * ```
 */
export async function runReplayCommand(
  command: Extract<ReplayCommand, { kind: 'replay' }>,
  signal: AbortSignal,
  io: ReplayIo = process,
): Promise<number> {
  // --region, else the queue URL's Region (the S3 client's too); AWS_REGION or the profile naming another is refused.
  const queues = [{ flag: '--to-queue', url: command.queueUrl }];
  const resolved = await regionOrExit(cliRegion(queues, command, process.env, refuse), ReplayOptionsError, io.stderr);
  if ('exitCode' in resolved) return resolved.exitCode;
  const { region } = resolved;
  // The archive bucket may be in another Region than the queue: S3's redirect to it is followed.
  const s3 = s3Client(cliS3Config(region, command.endpoint));
  const sqs = sqsClient(cliClientConfig(region, command.endpoint));
  const { kind: _, json, endpoint: _e, region: _r, ...selection } = command;
  const options = { ...selection, s3, sqs, signal };
  const checkpointPath = command.dryRun ? undefined : (command.checkpointPath ?? defaultCheckpointPath(planReplay(options).parameters));
  const progress = replayProgress(io.stderr);
  try {
    const summary = await replayArchive({
      ...options,
      ...(checkpointPath === undefined ? {} : { checkpointPath }),
      onProgress: progress.update,
    });
    progress.done();
    print(io, summary, json);
    if (summary.status === 'interrupted') return INTERRUPTED_EXIT;
    return summary.refused.length > 0 ? 1 : 0;
  } catch (error) {
    progress.done();
    const refused = asReplayFlag(error);
    if (refused instanceof ReplayOptionsError || refused instanceof ReplayCheckpointError) {
      io.stderr.write(`${(refused as Error).message}\n`);
      return 2;
    }
    const code = error instanceof OutboxError ? ` [${error.code}]` : '';
    // No region, no credentials, a bucket or queue that is not there: what to do, by the flags given.
    const hint = awsSetupHint(error, {
      queues: `--to-queue ${command.queueUrl}`,
      bucket: `--archive-bucket ${command.bucket}`,
      endpoint: command.endpoint,
    });
    io.stderr.write(`Replay stopped${code}: ${withHint(errorMessage(error), hint)}\n`);
    if (error instanceof ReplayStoppedError) print(io, error.summary, json);
    return 1;
  } finally {
    s3.destroy();
    sqs.destroy();
  }
}
