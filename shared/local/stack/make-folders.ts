import { mkdir, rmdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/**
 * Creates `dir` and its missing parents one at a time, resolving with the first one this call
 * created. Node's `mkdir(…, { recursive: true })` never settles on some paths (below `/proc`, where
 * creating a folder fails with ENOENT though its parent is there): this fails there instead.
 */
export async function makeFolders(dir: string): Promise<string | undefined> {
  const missing: string[] = [];
  for (let at = resolve(dir); ; at = dirname(at)) {
    const exists = await stat(at).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
        return false;
      },
    );
    if (exists || dirname(at) === at) break;
    missing.unshift(at);
  }
  const created: string[] = [];
  try {
    for (const folder of missing) {
      // Another run may have made it meanwhile (it is then that run's); a file there fails as the lock is written.
      const made = await mkdir(folder).then(
        () => true,
        (error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') throw error;
          return false;
        },
      );
      if (made) created.push(folder);
    }
  } catch (error) {
    // A refused path leaves no folder of this call behind, deepest first; one another run made, or wrote into, stays.
    for (const folder of created.reverse()) await rmdir(folder).catch(() => {});
    throw error;
  }
  return created[0];
}
