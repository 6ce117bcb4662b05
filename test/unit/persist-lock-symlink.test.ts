import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lockPersistDir, PERSIST_LOCK_FILE } from '../../shared/local/stack/persist-lock.js';

/*
 * One folder reached by two paths (a symbolic link to it; a bind mount is alike): the lock names this process either
 * way, so a second start here must know the folder is held here by what it is, not by how its
 * path is spelt; else it takes the first one's lock for stale, and removes its leftovers.
 */
const base = mkdtempSync(join(tmpdir(), 'outbox-lock-link-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('--persist folder lock, one folder by two paths in one process', () => {
  it.each([
    ['the folder, then the link to it', 'real', 'link'],
    ['the link, then the folder', 'link', 'real'],
  ])('refuses the second start, by %s, while the first one holds it', async (_, first, second) => {
    const root = mkdtempSync(join(base, 'case-'));
    const paths = { real: join(root, 'data'), link: join(root, 'data-link') };
    mkdirSync(paths.real);
    symlinkSync(paths.real, paths.link, 'dir');
    const held = await lockPersistDir(paths[first as 'real' | 'link']);
    try {
      const again = await lockPersistDir(paths[second as 'real' | 'link']).then(
        async (lock) => {
          await lock.release();
          return 'taken';
        },
        (error: unknown) => error,
      );

      expect(again).toMatchObject({ code: 'PERSIST_DIR_IN_USE', message: expect.stringContaining('this process') });
      expect(readFileSync(join(paths.real, PERSIST_LOCK_FILE), 'utf8')).toBe(`${process.pid}\n${hostname()}\n`);
    } finally {
      await held.release();
    }
    // Released, the folder is free again by either path.
    const after = await lockPersistDir(paths[second as 'real' | 'link']);
    await after.release();
  });
});
