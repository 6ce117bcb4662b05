import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../shared/local/clients.js';

const run = promisify(execFile);

/** The repository's root, where the CLI runs. */
export const REPOSITORY_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The package's bin from its source under tsx, which loads a TypeScript `--config` (`.ts`) as a user's tsx would. */
export const CLI_ARGS: readonly string[] = ['--import', 'tsx', 'functions/cli/main.ts'];

/**
 * The package's bin compiled to JavaScript (once per run, by the global setup) and run by plain
 * node, as `npx dynamodb-outbox` runs the installed bin; it starts in about half the time of
 * {@link CLI_ARGS}, for every command that loads no TypeScript.
 */
export const compiledCliArgs = (): readonly string[] => [inject('compiledCli')];

// A config in the caller's environment would change what the commands read.
const { OUTBOX_CONFIG: _, ...inherited } = process.env;

/** The CLI's environment: the emulator's credentials and region, no OUTBOX_CONFIG, plus `extra`. */
export const cliEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...inherited,
  AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
  AWS_REGION: LOCAL_REGION,
  NODE_NO_WARNINGS: '1',
  ...extra,
});

/**
 * Runs the CLI as a person would, asynchronously (so an in-process emulator keeps answering), from
 * its source unless `cli` says otherwise; its exit status and output, whatever the status.
 */
export const runCli = (
  args: readonly string[],
  extraEnv: Record<string, string> = {},
  cli: readonly string[] = CLI_ARGS,
): Promise<{ code: number; stdout: string; stderr: string }> => runCliIn(args, cliEnv(extraEnv), cli);

/** Runs the CLI as {@link runCli} does, in `env` as it is (a shell of the test's own). */
export async function runCliIn(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  cli: readonly string[] = CLI_ARGS,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...cli, ...args], { cwd: REPOSITORY_ROOT, env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}
