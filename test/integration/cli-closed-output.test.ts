import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { cliEnv, compiledCliArgs, REPOSITORY_ROOT } from '../helpers/cli.js';

/*
 * A reader that stops early (`dynamodb-outbox redrive --help | head -1`, a pager quit) closes the
 * pipe before the command writes: the command ends as it would have, without a stack trace.
 */

/** Runs the compiled CLI with its stdout closed by the reader before anything is written. */
async function withClosedOutput(args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [...compiledCliArgs(), ...args], { cwd: REPOSITORY_ROOT, env: cliEnv() });
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stderr };
}

describe('the command line writing to a closed pipe', () => {
  it.each([
    [['--help'], 0],
    [['redrive', '--help'], 0],
    [['replay', '--help'], 0],
  ])(
    '%j exits %i, with no stack trace',
    async (args, code) => {
      expect(await withClosedOutput(args)).toEqual({ code, stderr: '' });
    },
    60_000,
  );
});
