import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, linkSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lockPersistDir, PERSIST_LOCK_FILE, type PersistLock } from '../../shared/local/stack/persist-lock.js';
import { endStoppedRuns, runStoppedAt } from '../helpers/stopped-lock-run.js';

/*
 * What a run leaves in a --persist folder when it is killed at a moment of its lock: a real run
 * (another process) whose `link` kills it (or holds it, alive) at that moment. The draft of its
 * lock (killed before the draft was linked into place), or its pin on a stale takeover guard
 * (killed once the pin was made), named by the run itself.
 */
const dirs: string[] = [];
const locks: PersistLock[] = [];
afterEach(async () => {
  endStoppedRuns();
  for (const lock of locks.splice(0)) await lock.release();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const folder = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'outbox-lock-left-'));
  dirs.push(dir);
  return dir;
};
const deadPid = (): number => spawnSync('true').pid as number;
const leftovers = (dir: string): string[] => readdirSync(dir).filter((name) => /\.(new|reap)$/.test(name));

/** A folder as a run killed while taking over the lock of an ended run leaves it: the lock and the guard name ended runs. */
function folderWithStaleGuard(): { dir: string; guard: string } {
  const dir = folder();
  writeFileSync(join(dir, PERSIST_LOCK_FILE), `${deadPid()}\n`);
  writeFileSync(join(dir, `${PERSIST_LOCK_FILE}.takeover`), `${deadPid()}\n`);
  return { dir, guard: join(dir, `${PERSIST_LOCK_FILE}.takeover`) };
}

describe('--persist folder lock, the leftovers of a run killed at its lock', () => {
  it('removes the draft of a run of this host killed before it linked its lock into place', async () => {
    const dir = folder();
    await runStoppedAt(dir, '/.lock');
    expect(leftovers(dir)).toHaveLength(1);
    expect(existsSync(join(dir, PERSIST_LOCK_FILE))).toBe(false);

    locks.push(await lockPersistDir(dir));

    expect(leftovers(dir)).toEqual([]);
    expect(readFileSync(join(dir, PERSIST_LOCK_FILE), 'utf8')).toBe(`${process.pid}\n${hostname()}\n`);
  }, 60_000);

  it('leaves the draft of a run that still runs, and one of a run on another host', async () => {
    const dir = folder();
    await runStoppedAt(dir, '/.lock', { host: 'other-host' });
    const theirs = leftovers(dir);
    const held = await runStoppedAt(dir, '/.lock', { hold: true });
    const all = leftovers(dir);
    expect(all).toHaveLength(2);

    locks.push(await lockPersistDir(dir));

    expect(leftovers(dir).sort()).toEqual(all.sort());
    expect(leftovers(dir)).toEqual(expect.arrayContaining(theirs));
    expect(held.exitCode).toBeNull();
  }, 60_000);

  it('takes the folder after a run of this host was killed as it removed a stale takeover guard, leaving no pin', async () => {
    const { dir, guard } = folderWithStaleGuard();
    await runStoppedAt(dir, '.reap');
    expect(leftovers(dir)).toHaveLength(1);

    locks.push(await lockPersistDir(dir));

    expect(readFileSync(join(dir, PERSIST_LOCK_FILE), 'utf8')).toBe(`${process.pid}\n${hostname()}\n`);
    expect(existsSync(guard)).toBe(false);
    expect(leftovers(dir)).toEqual([]);
  }, 60_000);

  it('takes drafts and pins named without a host (as they were before they named it) for ones of this host', async () => {
    const { dir, guard } = folderWithStaleGuard();
    const ended = deadPid();
    const legacy = [`${PERSIST_LOCK_FILE}.${ended}.${randomUUID()}.new`, `${PERSIST_LOCK_FILE}.takeover.${ended}.${randomUUID()}.reap`];
    writeFileSync(join(dir, legacy[0] as string), `${ended}\n`);
    linkSync(guard, join(dir, legacy[1] as string));
    const running = `${PERSIST_LOCK_FILE}.${process.ppid}.${randomUUID()}.new`;
    writeFileSync(join(dir, running), `${process.ppid}\n`);

    locks.push(await lockPersistDir(dir));

    expect(leftovers(dir)).toEqual([running]);
    expect(existsSync(guard)).toBe(false);
  });

  it('still refuses while the guard names a running process, or a pin of a running remover is on it', async () => {
    const live = folder();
    writeFileSync(join(live, PERSIST_LOCK_FILE), `${deadPid()}\n`);
    writeFileSync(join(live, `${PERSIST_LOCK_FILE}.takeover`), `${process.ppid}\n`);
    await expect(lockPersistDir(live)).rejects.toMatchObject({
      code: 'PERSIST_DIR_IN_USE',
      message: expect.stringContaining('another local stack taking it over (.lock.takeover'),
    });
    expect(readFileSync(join(live, `${PERSIST_LOCK_FILE}.takeover`), 'utf8')).toBe(`${process.ppid}\n`);

    const { dir, guard } = folderWithStaleGuard();
    const remover = await runStoppedAt(dir, '.reap', { hold: true });
    const pins = leftovers(dir);

    await expect(lockPersistDir(dir)).rejects.toMatchObject({ code: 'PERSIST_DIR_IN_USE' });
    expect(existsSync(guard)).toBe(true);
    expect(leftovers(dir)).toEqual(pins);
    expect(remover.exitCode).toBeNull();
  }, 60_000);
});
