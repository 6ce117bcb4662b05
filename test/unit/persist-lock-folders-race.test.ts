import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

/*
 * Another run makes the same missing folder between this run's look for it and its `mkdir`, and
 * writes into it; this run's `mkdir` then meets EEXIST, and a deeper one fails. The folder is the
 * other run's: this run made none, so it removes none. The mock only lets the other run act at
 * that moment; every call still goes to the real file system.
 */
const race = vi.hoisted(() => ({ before: new Map<string, () => Promise<void>>() }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    mkdir: async (...args: Parameters<typeof real.mkdir>) => {
      const path = String(args[0]);
      const otherRun = race.before.get(path);
      race.before.delete(path);
      await otherRun?.();
      return real.mkdir(...args);
    },
  };
});

const { mkdir, writeFile } = await import('node:fs/promises');
const { lockPersistDir } = await import('../../shared/local/stack/persist-lock.js');

const base = mkdtempSync(join(tmpdir(), 'outbox-lock-folders-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('--persist folder creation racing another run', () => {
  it('leaves a folder another run made meanwhile when a deeper folder cannot be made', async () => {
    const theirs = join(base, 'shared');
    // The other run makes the folder and writes a file where this run wants a folder next.
    race.before.set(theirs, async () => {
      await mkdir(theirs);
      await writeFile(join(theirs, 'data'), 'the other run');
    });

    const error = await lockPersistDir(join(theirs, 'data', 'deeper')).catch((e: unknown) => e);

    expect(error).toMatchObject({ code: 'PERSIST_DIR_UNUSABLE', message: expect.stringContaining('ENOTDIR') });
    expect(existsSync(theirs)).toBe(true);
    expect(readFileSync(join(theirs, 'data'), 'utf8')).toBe('the other run');
  });
});
