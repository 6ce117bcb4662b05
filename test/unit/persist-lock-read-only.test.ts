import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lockPersistDir, PERSIST_LOCK_FILE, type PersistLock } from '../../shared/local/stack/persist-lock.js';

/*
 * A --persist folder that cannot be written to any more (a read-only mount, say; here a folder
 * made immutable, which not even root can change), holding a lock.
 */
const dirs: string[] = [];
const locks: PersistLock[] = [];
afterEach(async () => {
  // Whatever a test made read-only (a folder, a lock) is made writable again before the folders go.
  for (const dir of dirs) spawnSync('chattr', ['-i', dir]);
  for (const lock of locks.splice(0)) await lock.release();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const folder = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'outbox-lock-ro-'));
  dirs.push(dir);
  return dir;
};
const readOnly = (dir: string): boolean => spawnSync('chattr', ['+i', dir]).status === 0;
const writable = (dir: string): void => void spawnSync('chattr', ['-i', dir]);

/** Whether this process can make a folder immutable (root on ext4, say). */
function canMakeReadOnly(): boolean {
  const dir = folder();
  const made = readOnly(dir);
  writable(dir);
  return made;
}

describe.runIf(canMakeReadOnly())('--persist folder lock in a folder that cannot be written', () => {
  it('refuses the folder with PERSIST_DIR_UNUSABLE when the lock of an ended run is in it, and leaves that lock', async () => {
    const dir = folder();
    const ended = spawnSync('true').pid as number;
    writeFileSync(join(dir, PERSIST_LOCK_FILE), `${ended}\n`);
    readOnly(dir);

    await expect(lockPersistDir(dir)).rejects.toMatchObject({
      code: 'PERSIST_DIR_UNUSABLE',
      message: expect.stringMatching(
        new RegExp(`^--persist "${dir}" cannot be used as a folder \\(EPERM: .*\\); allowed: a writable folder path$`),
      ),
    });
    expect(readFileSync(join(dir, PERSIST_LOCK_FILE), 'utf8')).toBe(`${ended}\n`);
  });

  it('refuses the folder with PERSIST_DIR_UNUSABLE when the lock of an ended run cannot be deleted, rather than calling that run live', async () => {
    const dir = folder();
    const ended = spawnSync('true').pid as number;
    const lock = join(dir, PERSIST_LOCK_FILE);
    writeFileSync(lock, `${ended}\n`);
    dirs.push(lock);
    readOnly(lock);

    await expect(lockPersistDir(dir)).rejects.toMatchObject({
      code: 'PERSIST_DIR_UNUSABLE',
      message: expect.stringMatching(
        new RegExp(`^--persist "${dir}" cannot be used as a folder \\(EPERM: .*\\); allowed: a writable folder path$`),
      ),
    });
    expect(readFileSync(lock, 'utf8')).toBe(`${ended}\n`);
  });

  it('leaves its lock when release cannot delete it, and the next start takes that lock over', async () => {
    const dir = folder();
    const lock = await lockPersistDir(dir);
    readOnly(dir);

    await lock.release();
    expect(readFileSync(join(dir, PERSIST_LOCK_FILE), 'utf8')).toBe(`${process.pid}\n${hostname()}\n`);
    writable(dir);

    // It names this process, which no longer holds the folder: stale, as after a run that was killed.
    locks.push(await lockPersistDir(dir));
    expect(readFileSync(join(dir, PERSIST_LOCK_FILE), 'utf8')).toBe(`${process.pid}\n${hostname()}\n`);
  });
});
