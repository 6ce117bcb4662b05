/**
 * The files a `--persist` lock's run makes beside the lock for a moment: the draft of a lock or
 * takeover guard (`.new`), written before it is linked into place, and its pin on a stale guard it
 * removes (`.reap`). Each is named by the process and host that made it, so the next start removes
 * those a killed run left: a draft would stay for ever, and a pin would keep every later start
 * from removing the stale guard it is on.
 */

import { createHash, randomUUID } from 'node:crypto';
import { readdir, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** This process's id, as its lock and leftovers name it (read once, when the module is loaded). */
export const PID = process.pid;

/** A host as leftovers name it: a hash of its name, of one length whatever the name. */
const hostTag = (host: string): string => createHash('sha256').update(host).digest('hex').slice(0, 12);
const HOST = hostTag(hostname());

/** A file of this run's own beside `path`: a draft (`new`) or a pin (`reap`), named `path.<pid>.<host>.<uuid>.<kind>`. */
export const ownLeftover = (path: string, kind: 'new' | 'reap'): string => `${path}.${PID}.${HOST}.${randomUUID()}.${kind}`;

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** A leftover of `<file>` or `<file>.takeover`; one named without a host was made before leftovers named it (on this host). */
const leftoverOf = (file: string): RegExp =>
  new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:\\.takeover)?\\.(\\d+)\\.(?:([0-9a-f]{12})\\.)?${UUID}\\.(?:new|reap)$`);

/** Whether a process with this id is running (one owned by another user counts). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether a process of this host named by a lock, guard or leftover still has the folder's lock
 * in hand. One naming this process is not: the lock lets one start of a process at a time look at
 * a folder, and after a restart (a container, say) this process may have the id of the run that
 * was killed.
 */
export function isLive(pid: number | undefined): boolean {
  return pid !== undefined && pid !== PID && isRunning(pid);
}

/**
 * Removes the leftovers of `file` (the lock's name) in `dir` that were made by a process of this
 * host that no longer runs; those of a running process, or of another host (which this one cannot
 * look for), stay. Only a file whose maker has ended goes, so no run in the middle of its lock
 * loses its draft or pin. Best effort: a leftover that cannot be listed or removed stays as before.
 */
export async function removeEndedLeftovers(dir: string, file: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const pattern = leftoverOf(file);
  for (const name of names) {
    const match = pattern.exec(name);
    if (match === null || (match[2] ?? HOST) !== HOST || isLive(Number(match[1]))) continue;
    await unlink(join(dir, name)).catch(() => {});
  }
}
