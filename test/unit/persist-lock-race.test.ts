import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

/*
 * Two `npm start --persist DIR` launched together after a killed run: both read the dead holder
 * before either acts, and a second removal of the lock waits until a new lock was written, which
 * is the order in which the later run would delete the earlier run's fresh lock. The other run is
 * the module loaded again under another process id (one start per folder and process is allowed).
 * The mock only orders the calls; each one still goes to the real file system.
 */
const gate = vi.hoisted(() => {
  let reads = 0;
  let bothRead: () => void = () => {};
  const read = new Promise<void>((resolve) => {
    bothRead = resolve;
  });
  let lockWritten: () => void = () => {};
  const written = new Promise<void>((resolve) => {
    lockWritten = resolve;
  });
  let removals = 0;
  const isLock = (path: unknown) => String(path).endsWith('/.lock');
  return {
    afterRead: async (path: unknown) => {
      if (!isLock(path)) return;
      if (++reads === 2) bothRead();
      await read;
    },
    beforeUnlink: async (path: unknown) => {
      if (isLock(path) && ++removals === 2) await written;
    },
    afterWrite: (path: unknown) => {
      if (isLock(path)) lockWritten();
    },
  };
});

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    readFile: async (...args: Parameters<typeof real.readFile>) => {
      const result = await real.readFile(...args);
      await gate.afterRead(args[0]);
      return result;
    },
    unlink: async (...args: Parameters<typeof real.unlink>) => {
      await gate.beforeUnlink(args[0]);
      return real.unlink(...args);
    },
    writeFile: async (...args: Parameters<typeof real.writeFile>) => {
      await real.writeFile(...args);
      gate.afterWrite(args[0]);
    },
  };
});

const { lockPersistDir, PERSIST_LOCK_FILE } = await import('../../shared/local/stack/persist-lock.js');
// The other run: the module loaded again as a process with another id (one that runs) loads it.
vi.resetModules();
const ownPid = Object.getOwnPropertyDescriptor(process, 'pid') as PropertyDescriptor;
Object.defineProperty(process, 'pid', { ...ownPid, value: process.ppid });
const otherRun = await import('../../shared/local/stack/persist-lock.js').finally(() => Object.defineProperty(process, 'pid', ownPid));

const dir = mkdtempSync(join(tmpdir(), 'outbox-lock-race-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('--persist folder lock, two runs at once', () => {
  it('lets only one of two runs that found the same ended holder take the folder over', async () => {
    writeFileSync(join(dir, PERSIST_LOCK_FILE), `${spawnSync('true').pid}\n`);

    const outcomes = await Promise.allSettled([lockPersistDir(dir), otherRun.lockPersistDir(dir)]);

    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(outcomes.find((o) => o.status === 'rejected')).toMatchObject({ reason: { code: 'PERSIST_DIR_IN_USE' } });
  });
});
