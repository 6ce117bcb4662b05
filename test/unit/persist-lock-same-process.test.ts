import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

/*
 * A second start on the same folder in the same process looks at it just after the first one's
 * lock is in place. The lock names this process, so it is stale unless the folder is marked as
 * held here; it was marked only after the lock was written, and the second start took the first
 * one's lock over. The mock only lets the second start run at that moment; every call goes to
 * the real file system.
 */
const moment = vi.hoisted(() => ({ lock: '', otherStart: undefined as (() => Promise<void>) | undefined }));
const afterLockAppears = async (path: unknown): Promise<void> => {
  if (String(path) !== moment.lock || moment.otherStart === undefined) return;
  const otherStart = moment.otherStart;
  moment.otherStart = undefined;
  await otherStart();
};

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    writeFile: async (...args: Parameters<typeof real.writeFile>) => {
      await real.writeFile(...args);
      await afterLockAppears(args[0]);
    },
    link: async (...args: Parameters<typeof real.link>) => {
      await real.link(...args);
      await afterLockAppears(args[1]);
    },
  };
});

const { lockPersistDir, PERSIST_LOCK_FILE } = await import('../../shared/local/stack/persist-lock.js');

const dir = mkdtempSync(join(tmpdir(), 'outbox-lock-same-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('--persist folder lock, two starts on one folder in one process', () => {
  it('refuses the second start while the first one is still taking the folder', async () => {
    moment.lock = join(dir, PERSIST_LOCK_FILE);
    let second: unknown;
    moment.otherStart = async () => {
      second = await lockPersistDir(dir).then(
        async (lock) => {
          await lock.release();
          return 'locked';
        },
        (error: unknown) => error,
      );
    };

    const first = await lockPersistDir(dir);

    expect(second).toMatchObject({ code: 'PERSIST_DIR_IN_USE', message: expect.stringContaining('this process') });
    expect(readFileSync(moment.lock, 'utf8')).toBe(`${process.pid}\n${hostname()}\n`);
    await first.release();
    expect(existsSync(moment.lock)).toBe(false);
  });
});
