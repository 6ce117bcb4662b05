import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lockPersistDir, PERSIST_LOCK_FILE, type PersistLock } from '../../shared/local/stack/persist-lock.js';
import { settlesWithin } from '../helpers/wait.js';

const dirs: string[] = [];
const locks: PersistLock[] = [];
afterEach(async () => {
  for (const lock of locks.splice(0)) await lock.release();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A data folder whose lock names `holder`, as a run killed without releasing it leaves it. */
function folderLockedBy(holder: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'outbox-lock-'));
  dirs.push(dir);
  writeFileSync(join(dir, PERSIST_LOCK_FILE), `${holder}\n`);
  return dir;
}

const deadPid = (): number => spawnSync('true').pid as number;

describe('--persist folder lock', () => {
  it('takes over a lock that names this process when this process does not hold the folder (a restart given the same pid)', async () => {
    const dir = folderLockedBy(process.pid);

    locks.push(await lockPersistDir(dir));

    await expect(lockPersistDir(dir)).rejects.toMatchObject({
      code: 'PERSIST_DIR_IN_USE',
      message: expect.stringContaining('this process'),
    });
  });

  it('refuses a folder whose lock names a running process, and leaves that lock alone', async () => {
    const dir = folderLockedBy(process.ppid);

    await expect(lockPersistDir(dir)).rejects.toMatchObject({
      code: 'PERSIST_DIR_IN_USE',
      message: expect.stringContaining(`in use by another local stack (pid ${process.ppid})`),
    });
    // The process may be no local stack at all (its id reused after a reboot): the message says what to do then.
    await expect(lockPersistDir(dir)).rejects.toMatchObject({
      message: expect.stringContaining(
        `(if process ${process.ppid} is no local stack, its id was reused after the run that held the folder ended: delete ${join(dir, PERSIST_LOCK_FILE)})`,
      ),
    });
    expect(readFileSync(join(dir, PERSIST_LOCK_FILE), 'utf8')).toBe(`${process.ppid}\n`);
  });

  it('creates a missing folder, parents included, and refuses a path that cannot be a folder', async () => {
    const base = mkdtempSync(join(tmpdir(), 'outbox-lock-'));
    dirs.push(base);
    const nested = join(base, 'a', 'b');
    locks.push(await lockPersistDir(nested));
    expect(readFileSync(join(nested, PERSIST_LOCK_FILE), 'utf8')).toBe(`${process.pid}\n${hostname()}\n`);

    const file = join(base, 'a-file');
    writeFileSync(file, 'not a folder');
    for (const dir of [file, join(file, 'below')]) {
      await expect(lockPersistDir(dir)).rejects.toMatchObject({
        code: 'PERSIST_DIR_UNUSABLE',
        message: expect.stringMatching(
          new RegExp(`^--persist "${dir}" cannot be used as a folder \\(E[A-Z]+: .*\\); allowed: a writable folder path$`),
        ),
      });
    }
  });

  it('refuses a folder whose lock names a process on another host, which this host cannot look for, and leaves that lock alone', async () => {
    // The id of no process here: a run on this host would take such a lock over.
    const dir = folderLockedBy(deadPid());
    const lock = join(dir, PERSIST_LOCK_FILE);
    const theirs = `${readFileSync(lock, 'utf8').trim()}\nother-host\n`;
    writeFileSync(lock, theirs);

    await expect(lockPersistDir(dir)).rejects.toMatchObject({
      code: 'PERSIST_DIR_IN_USE',
      message: `--persist ${JSON.stringify(dir)} is in use by a local stack on another host (pid ${theirs.split('\n')[0]} on "other-host", this is ${JSON.stringify(hostname())}); allowed: a folder no other run uses — stop that run, or choose another folder (if that run has ended, delete ${lock})`,
    });
    expect(readFileSync(lock, 'utf8')).toBe(theirs);
  });

  it('refuses a folder whose lock is no file, saying what it found and what to do, and leaves it alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outbox-lock-'));
    dirs.push(dir);
    const lock = join(dir, PERSIST_LOCK_FILE);
    mkdirSync(lock);

    await expect(lockPersistDir(dir)).rejects.toMatchObject({
      code: 'PERSIST_DIR_IN_USE',
      message: `--persist ${JSON.stringify(dir)} has a lock that names no process: ${JSON.stringify(lock)} is a folder, not a file holding a process id; allowed: a folder no other run uses — if none uses it, delete ${JSON.stringify(lock)}`,
    });
    expect(existsSync(lock)).toBe(true);
  });

  it('takes over a lock that holds no process id (a run killed as it wrote it)', async () => {
    for (const text of ['', 'not a pid\n']) {
      const dir = mkdtempSync(join(tmpdir(), 'outbox-lock-'));
      dirs.push(dir);
      writeFileSync(join(dir, PERSIST_LOCK_FILE), text);

      locks.push(await lockPersistDir(dir));

      expect(readFileSync(join(dir, PERSIST_LOCK_FILE), 'utf8')).toBe(`${process.pid}\n${hostname()}\n`);
    }
  });

  it('removes its lock on release, once', async () => {
    const dir = folderLockedBy(deadPid());
    const lock = await lockPersistDir(dir);

    await lock.release();
    await lock.release();

    expect(existsSync(join(dir, PERSIST_LOCK_FILE))).toBe(false);
  });
});

describe('--persist folder lock, on a path where no folder can be made', () => {
  // Node's recursive mkdir never settles there (creating a folder fails with ENOENT though its parent is there): the run hung, silent.
  it.runIf(existsSync('/proc/self'))('refuses a folder below /proc at once with PERSIST_DIR_UNUSABLE', async () => {
    const dir = '/proc/outbox-data/a';

    const error = await settlesWithin(
      lockPersistDir(dir).then(
        async (lock) => {
          await lock.release();
          return new Error('the folder was locked');
        },
        (e: unknown) => e,
      ),
      10_000,
      'an answer from lockPersistDir',
    );

    expect(error).toMatchObject({
      code: 'PERSIST_DIR_UNUSABLE',
      message: `--persist "${dir}" cannot be used as a folder (ENOENT: no such file or directory, mkdir '/proc/outbox-data'); allowed: a writable folder path`,
    });
  });
});
