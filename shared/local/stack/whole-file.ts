import { link, unlink, writeFile } from 'node:fs/promises';
import { ownLeftover } from './lock-leftovers.js';

/** Error codes of a file system without hard links. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

/**
 * Creates `path` holding `text` whole, failing with EEXIST (atomically) when `path` is there: the
 * text is written to a file of its own, which is then linked into place. So a lock or guard that
 * is empty was left by a run killed as it wrote it, never one being written. Where the file system
 * has no hard links, `path` is created and written in place, so it is empty for a moment after it
 * appears (see {@link hardLinksWork}): no fallback makes it appear whole there, as an exclusive
 * create makes the name before its text is written, and a rename replaces a file that is there. A
 * draft left by a run killed before it was linked is removed by the next start (`removeEndedLeftovers`).
 */
export async function createWhole(path: string, text: string): Promise<void> {
  const draft = ownLeftover(path, 'new');
  await writeFile(draft, text, { flag: 'wx' });
  try {
    await link(draft, path);
  } catch (error) {
    if (!NO_HARD_LINKS.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
    await writeFile(path, text, { flag: 'wx' });
  } finally {
    await unlink(draft).catch(() => {});
  }
}

/**
 * Whether the file system of `nextTo` has hard links: a file of this run's own is linked to a second
 * name beside it (both removed after). Where it has none, an empty file made by {@link createWhole}
 * may be one being written. Rejects with the file system's error when the probe cannot be made.
 */
export async function hardLinksWork(nextTo: string): Promise<boolean> {
  const probe = ownLeftover(nextTo, 'new');
  const second = ownLeftover(nextTo, 'new');
  await writeFile(probe, '', { flag: 'wx' });
  try {
    await link(probe, second);
    return true;
  } catch (error) {
    if (NO_HARD_LINKS.has((error as NodeJS.ErrnoException).code ?? '')) return false;
    throw error;
  } finally {
    await unlink(second).catch(() => {});
    await unlink(probe).catch(() => {});
  }
}

/** Whether `error` says `path` is there already (from `writeFile`, or as the target of `link`). */
export const alreadyThere = (error: unknown, path: string): boolean => {
  const { code, path: at, dest } = error as NodeJS.ErrnoException & { dest?: string };
  return code === 'EEXIST' && (at === path || dest === path);
};
