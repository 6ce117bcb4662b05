import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it, vi } from 'vitest';

/*
 * A second run (another process) looks at the folder the moment this run's `.lock` first
 * appears. A lock written open-then-write is empty then, and the other run took it over as
 * stale, deleting it. The mock only lets the other run act at that moment (between the lock's
 * creation and its content, where the lock is created so); every call goes to the real file system.
 */
const moment = vi.hoisted(() => ({ lock: '', otherRun: undefined as (() => Promise<void>) | undefined }));
const atMoment = async (path: unknown): Promise<void> => {
  if (String(path) !== moment.lock || moment.otherRun === undefined) return;
  const otherRun = moment.otherRun;
  moment.otherRun = undefined;
  await otherRun();
};

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    writeFile: async (...args: Parameters<typeof real.writeFile>) => {
      const [path, data, options] = args;
      if (String(path) !== moment.lock || (options as { flag?: string } | undefined)?.flag !== 'wx') return real.writeFile(...args);
      // What `writeFile(…, { flag: 'wx' })` does, in its steps: create the file, then write it.
      const file = await real.open(path as string, 'wx');
      try {
        await atMoment(path);
        await file.writeFile(data as string);
      } finally {
        await file.close();
      }
    },
    link: async (...args: Parameters<typeof real.link>) => {
      await real.link(...args);
      await atMoment(args[1]);
    },
  };
});

const { lockPersistDir, PERSIST_LOCK_FILE } = await import('../../shared/local/stack/persist-lock.js');

const dir = mkdtempSync(join(tmpdir(), 'outbox-lock-whole-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Another process's start on `dir`: what its `lockPersistDir` answered (the code of its refusal, or `locked`). */
async function otherProcessLocks(): Promise<string> {
  const module = resolve('shared/local/stack/persist-lock.ts');
  const script = `const { lockPersistDir } = await import(${JSON.stringify(module)});
await lockPersistDir(${JSON.stringify(dir)}).then(() => console.log('locked'), (e) => console.log(e.code ?? e.message));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    timeout: 30_000,
  });
  return stdout.trim();
}

describe('--persist folder lock, seen by another run as it appears', () => {
  it('is never seen empty, so another run refuses the folder instead of taking the new lock over', async () => {
    moment.lock = join(dir, PERSIST_LOCK_FILE);
    let other = '';
    moment.otherRun = async () => {
      other = await otherProcessLocks();
    };

    const lock = await lockPersistDir(dir);

    expect(other).toBe('PERSIST_DIR_IN_USE');
    expect(readFileSync(moment.lock, 'utf8')).toBe(`${process.pid}\n${hostname()}\n`);
    await lock.release();
  }, 40_000);
});
