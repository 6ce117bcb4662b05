import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';

/*
 * A run killed as it took a folder's stale lock over leaves `.lock.takeover` behind. One naming a
 * process of this host that no longer runs is removed by the next start; of two starts that both
 * found it so, only one goes on. The mock only lets the other start (another process) act once
 * this one has pinned the guard to remove it; every call goes to the real file system.
 */
const moment = vi.hoisted(() => ({ guard: '', otherRun: undefined as (() => Promise<void>) | undefined }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    link: async (...args: Parameters<typeof real.link>) => {
      await real.link(...args);
      const otherRun = moment.otherRun;
      if (String(args[0]) !== moment.guard || otherRun === undefined) return;
      moment.otherRun = undefined;
      await otherRun();
    },
  };
});

const { lockPersistDir, PERSIST_LOCK_FILE } = await import('../../shared/local/stack/persist-lock.js');
const { runStoppedAt } = await import('../helpers/stopped-lock-run.js');

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const deadPid = (): number => spawnSync('true').pid as number;

/** A folder as a run killed while taking over the lock of an ended run leaves it: guard `guardText`. */
function folderWithGuard(guardText: string): { dir: string; lock: string; guard: string } {
  const dir = mkdtempSync(join(tmpdir(), 'outbox-lock-guard-'));
  dirs.push(dir);
  const lock = join(dir, PERSIST_LOCK_FILE);
  writeFileSync(lock, `${deadPid()}\n`);
  writeFileSync(`${lock}.takeover`, guardText);
  return { dir, lock, guard: `${lock}.takeover` };
}

/** Another process's start on `dir`: the code of its refusal, or `locked`. */
async function otherProcessLocks(dir: string): Promise<string> {
  const module = resolve('shared/local/stack/persist-lock.ts');
  const script = `const { lockPersistDir } = await import(${JSON.stringify(module)});
await lockPersistDir(${JSON.stringify(dir)}).then(() => console.log('locked'), (e) => console.log(e.code ?? e.message));`;
  const run = promisify(execFile);
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    timeout: 30_000,
  });
  return stdout.trim();
}

describe('--persist folder lock, a takeover guard left by a killed run', () => {
  it('removes a guard naming a process of this host that no longer runs (or none), and takes the folder', async () => {
    for (const text of [`${deadPid()}\n`, `${deadPid()}\n${hostname()}\n`, '']) {
      const { dir, lock, guard } = folderWithGuard(text);

      const held = await lockPersistDir(dir);

      expect(readFileSync(lock, 'utf8')).toBe(`${process.pid}\n${hostname()}\n`);
      expect(existsSync(guard)).toBe(false);
      await held.release();
    }
  });

  it('leaves a guard naming a running process or one of another host, and refuses the folder', async () => {
    for (const text of [`${process.ppid}\n`, `${deadPid()}\nother-host\n`]) {
      const { dir, guard } = folderWithGuard(text);

      await expect(lockPersistDir(dir)).rejects.toMatchObject({
        code: 'PERSIST_DIR_IN_USE',
        message: expect.stringContaining('another local stack taking it over (.lock.takeover'),
      });
      expect(readFileSync(guard, 'utf8')).toBe(text);
    }
  });

  it('lets only one of two starts that found the same ended guard remove it and take the folder', async () => {
    const { dir, lock, guard } = folderWithGuard(`${deadPid()}\n`);
    moment.guard = guard;
    let other = '';
    moment.otherRun = async () => {
      other = await otherProcessLocks(dir);
    };

    const held = await lockPersistDir(dir);

    expect(other).toBe('PERSIST_DIR_IN_USE');
    expect(readFileSync(lock, 'utf8')).toBe(`${process.pid}\n${hostname()}\n`);
    expect(existsSync(guard)).toBe(false);
    await held.release();
  }, 40_000);
  it('lets only one of two starts remove a guard on which a remover that was killed left its pin, and take the folder', async () => {
    const { dir, lock, guard } = folderWithGuard(`${deadPid()}\n`);
    await runStoppedAt(dir, '.reap');
    expect(readdirSync(dir).filter((name) => name.endsWith('.reap'))).toHaveLength(1);
    moment.guard = guard;
    let other = '';
    moment.otherRun = async () => {
      other = await otherProcessLocks(dir);
    };

    const held = await lockPersistDir(dir);

    expect(other).toBe('PERSIST_DIR_IN_USE');
    expect(readFileSync(lock, 'utf8')).toBe(`${process.pid}\n${hostname()}\n`);
    expect(existsSync(guard)).toBe(false);
    expect(readdirSync(dir).filter((name) => name.endsWith('.reap'))).toEqual([]);
    await held.release();
  }, 60_000);
});
