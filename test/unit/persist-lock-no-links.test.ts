import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

/*
 * A file system without hard links (FAT, some network and FUSE mounts): `link` fails with EPERM,
 * as it does there; every other call goes to the real file system. The lock is then written in
 * place, so it is empty for a moment after it appears: a start that finds an empty lock there
 * cannot tell it from one a killed run left.
 */
const moment = vi.hoisted(() => ({ lock: '', afterRead: undefined as (() => void) | undefined }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    // Lets another run act once the lock was first read: its change is then there at the next read.
    readFile: async (...args: Parameters<typeof real.readFile>) => {
      const text = await real.readFile(...args);
      const afterRead = moment.afterRead;
      if (String(args[0]) === moment.lock && afterRead !== undefined) {
        moment.afterRead = undefined;
        afterRead();
      }
      return text;
    },
    link: async (from: string, to: string) => {
      throw Object.assign(new Error(`EPERM: operation not permitted, link '${from}' -> '${to}'`), {
        code: 'EPERM',
        path: from,
        dest: to,
      });
    },
  };
});

const { lockPersistDir, PERSIST_LOCK_FILE } = await import('../../shared/local/stack/persist-lock.js');

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A data folder holding `.lock` with `text` (and `.lock.takeover` with `guard`, if given). */
function folderWith(text: string | undefined, guard?: string): { dir: string; lock: string } {
  const dir = mkdtempSync(join(tmpdir(), 'outbox-lock-nolink-'));
  dirs.push(dir);
  const lock = join(dir, PERSIST_LOCK_FILE);
  if (text !== undefined) writeFileSync(lock, text);
  if (guard !== undefined) writeFileSync(`${lock}.takeover`, guard);
  return { dir, lock };
}
const deadPid = (): number => spawnSync('true').pid as number;

describe('--persist folder lock on a file system without hard links', () => {
  it('writes its lock in place, whole, and leaves no draft', async () => {
    const { dir, lock } = folderWith(undefined);

    const held = await lockPersistDir(dir);

    expect(readFileSync(lock, 'utf8')).toBe(`${process.pid}\n${hostname()}\n`);
    expect(readdirSync(dir)).toEqual([PERSIST_LOCK_FILE]);
    await held.release();
  });

  it('refuses a folder whose lock names no process yet (a run writing it in place), and leaves that lock alone', async () => {
    const { dir, lock } = folderWith('');

    await expect(lockPersistDir(dir)).rejects.toMatchObject({
      code: 'PERSIST_DIR_IN_USE',
      message: `--persist ${JSON.stringify(dir)} is in use by another local stack writing its lock (${PERSIST_LOCK_FILE} names no process yet); allowed: a folder no other run uses — stop that run, or choose another folder (if no run is starting on it, delete ${lock})`,
    });
    expect(readFileSync(lock, 'utf8')).toBe('');
  });

  it('still takes over the lock of a run of this host that has ended', async () => {
    const { dir, lock } = folderWith(`${deadPid()}\n${hostname()}\n`);

    const held = await lockPersistDir(dir);

    expect(readFileSync(lock, 'utf8')).toBe(`${process.pid}\n${hostname()}\n`);
    await held.release();
  });

  it("refuses the folder when, as it took over an ended run's lock, another run's lock appeared there, not written yet", async () => {
    const { dir, lock } = folderWith(`${deadPid()}\n${hostname()}\n`);
    moment.lock = lock;
    // Another run took the ended run's lock over meanwhile, and a third run found no lock and is writing its own, in place.
    moment.afterRead = () => writeFileSync(lock, '');

    await expect(lockPersistDir(dir)).rejects.toMatchObject({
      code: 'PERSIST_DIR_IN_USE',
      message: expect.stringContaining(`another local stack writing its lock (${PERSIST_LOCK_FILE} names no process yet)`),
    });
    expect(readFileSync(lock, 'utf8')).toBe('');
  });

  it('leaves a takeover guard a killed run left, and refuses the folder saying to delete it', async () => {
    const guard = `${deadPid()}\n`;
    const { dir, lock } = folderWith(`${deadPid()}\n`, guard);

    await expect(lockPersistDir(dir)).rejects.toMatchObject({
      code: 'PERSIST_DIR_IN_USE',
      message: expect.stringContaining('another local stack taking it over (.lock.takeover: delete it if no other run is starting)'),
    });
    expect(readFileSync(`${lock}.takeover`, 'utf8')).toBe(guard);
  });
});
