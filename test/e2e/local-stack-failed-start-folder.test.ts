import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { localApp } from '../../examples/orders/local-app.js';
import { config as appConfig } from '../../examples/orders/outbox.config.js';
import { defineConfig } from '../../shared/config.js';
import { startLocalStack } from '../../shared/local/stack/local-stack.js';

/*
 * A start that fails after DynamoDB Local has started on a --persist folder it created removes
 * that folder again, but not while a part that failed to stop may still use it, and a folder it
 * cannot remove is reported with the start's failure, as a part that fails to stop is.
 */
const config = defineConfig({ ...appConfig, lowLatencyAggregateTypes: ['payment'] });
const base = mkdtempSync(join(tmpdir(), 'outbox-failed-start-folder-'));
afterAll(() => {
  // The file that could not be deleted, wherever the failed start left it.
  spawnSync('chattr', ['-R', '-i', base]);
  rmSync(base, { recursive: true, force: true });
});

/** Whether this file system lets this process make a file that not even its owner can delete (root on ext4, say). */
function canMakeImmutable(): boolean {
  const probe = join(base, 'probe');
  writeFileSync(probe, '');
  const made = spawnSync('chattr', ['+i', probe]).status === 0;
  if (made) spawnSync('chattr', ['-i', probe]);
  rmSync(probe);
  return made;
}

type Failure = Error & { errors?: unknown[] };
const failure = (e: unknown) => e as Failure;

describe('startLocalStack failing after it created the --persist folder', { timeout: 120_000 }, () => {
  it('keeps the folder when a part failed to stop, as that part may still use it', async () => {
    const persistDir = join(base, 'kept', 'data');
    const error = await startLocalStack({
      config,
      ...localApp(),
      apiPort: 0,
      persistDir,
      // Starts, but will not stop; the API after it fails the start.
      processor: async () => ({
        stop: async () => {
          throw new Error('the processor would not stop');
        },
      }),
      api: () => {
        throw new Error('the API would not start');
      },
    }).then(async (stack) => {
      await stack.stop();
      return new Error('the start resolved') as Failure;
    }, failure);

    expect(error.message).toMatch(/^the API would not start$/);
    expect(error.errors).toEqual([new Error('the processor would not stop')]);
    expect(existsSync(persistDir)).toBe(true);
    // Its lock is given up all the same: the run is over.
    expect(readdirSync(persistDir)).not.toContain('.lock');
  });

  it.runIf(canMakeImmutable())('reports a created folder it could not remove in the error’s errors', async () => {
    const persistDir = join(base, 'stuck', 'data');
    const stuck = join(persistDir, 'stuck');
    const error = await startLocalStack({
      config,
      ...localApp(),
      apiPort: 0,
      persistDir,
      // DynamoDB Local runs on the folder by now; a file in it that cannot be deleted keeps it.
      processor: async () => {
        mkdirSync(stuck);
        writeFileSync(join(stuck, 'file'), '');
        execFileSync('chattr', ['+i', join(stuck, 'file')]);
        throw new Error('the processor would not start');
      },
    }).then(async (stack) => {
      await stack.stop();
      return new Error('the start resolved') as Failure;
    }, failure);

    expect(error.message).toMatch(/^the processor would not start$/);
    expect(error.errors).toHaveLength(1);
    // Moved aside before it was removed, so no other run could take it meanwhile: what is left is there.
    const left = join(base, `stuck.${process.pid}.removed`);
    const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expect(String((error.errors?.[0] as Error | undefined)?.message)).toMatch(
      new RegExp(
        `^the --persist folder ${literal(JSON.stringify(join(base, 'stuck')))} this start created could not be removed \\(E[A-Z]+: .*${literal(left)}.*\\); delete ${literal(JSON.stringify(left))}$`,
      ),
    );
    expect(existsSync(join(base, 'stuck'))).toBe(false);
  });
});
