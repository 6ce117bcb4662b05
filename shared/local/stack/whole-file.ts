import { link, unlink, writeFile } from 'node:fs/promises';
import { ownLeftover } from './lock-leftovers.js';

/** Error codes of a file system without hard links. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

/**
 * Creates `path` holding `text` whole, failing with EEXIST (atomically) when `path` is there: the
 * text is written to a file of its own, which is then linked into place. So a lock or guard that
 * is empty was left by a run killed as it wrote it, never one being written. Where the file system
 * has no hard links, `path` is created and written in place. A draft left by a run killed before
 * it was linked is removed by the next start (`removeEndedLeftovers`).
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

/** Whether `error` says `path` is there already (from `writeFile`, or as the target of `link`). */
export const alreadyThere = (error: unknown, path: string): boolean => {
  const { code, path: at, dest } = error as NodeJS.ErrnoException & { dest?: string };
  return code === 'EEXIST' && (at === path || dest === path);
};
