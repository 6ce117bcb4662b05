import { link, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { errorMessage } from '../../error-message.js';
import { LocalStackError } from '../errors.js';
import { isLive, ownLeftover, PID, removeEndedLeftovers } from './lock-leftovers.js';
import { makeFolders } from './make-folders.js';
import { alreadyThere, createWhole, hardLinksWork } from './whole-file.js';

/** The file in a `--persist` folder that names the process using it. */
export const PERSIST_LOCK_FILE = '.lock';
/** What this process's lock says: its id, and the host it runs on (a folder may be shared with other hosts). */
const LOCK_TEXT = `${PID}\n${hostname()}\n`;
/** Held for the moment a run takes over a lock left by a run that has ended, so only one run does. */
const TAKEOVER_SUFFIX = '.takeover';

/** A held lock on a data folder; `release()` or `discard()` gives it up (once, later calls do nothing). */
export interface PersistLock {
  release(): Promise<void>;
  /**
   * Gives the lock up after a failed start, removing the folder this lock created (with the lock
   * in it) when `removeCreated`: not when a part that failed to stop may still use it. The folder
   * is moved aside before it is removed, so no other run can take it in the meantime. Resolves
   * with the failure to remove it, for the start's `errors`; with `undefined` when there is none.
   */
  discard(removeCreated: boolean): Promise<Error | undefined>;
  /** The first folder this lock created (the data folder or a parent of it), if it created any. */
  readonly createdDir: string | undefined;
}

/**
 * The folders this process holds or is taking, each marked before its lock is looked at: a second
 * start here on one of them is refused at once, so a lock naming this process's id is stale. Each
 * is marked by its resolved path, and once it exists by its device and inode (`folder <dev>:<ino>`),
 * so a start by another path to it is refused too.
 */
const heldHere = new Set<string>();

/**
 * What a lock holds: the id of the process on this host it names; `undefined` when it names none
 * (empty, say: a run killed as it wrote it), so it is stale where the file system has hard links
 * (see `mayBeWritten`); a process on another host, which this one cannot look for; or, when it is
 * no file this process can read (a folder, say), what was found instead. A lock of the last two
 * kinds is never taken over.
 */
type Holder = number | undefined | { readonly pid: number; readonly host: string } | { readonly found: string };

async function holderOf(path: string): Promise<Holder> {
  try {
    // A lock written before locks named their host names the process alone: one on this host.
    const [first = '', host = ''] = (await readFile(path, 'utf8')).split('\n');
    const pid = Number.parseInt(first, 10);
    if (!Number.isInteger(pid) || pid <= 0) return undefined;
    return host.trim() === '' || host.trim() === hostname() ? pid : { pid, host: host.trim() };
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    // Gone meanwhile: nobody holds the folder.
    if (code === 'ENOENT') return undefined;
    return { found: code === 'EISDIR' ? 'is a folder, not a file holding a process id' : `cannot be read (${errorMessage(error)})` };
  }
}

/** The refusal of a folder whose lock `holder` holds; `'takeover'` while another run takes a stale lock over. */
function inUse(dir: string, holder: Holder | 'takeover'): LocalStackError {
  const lock = join(dir, PERSIST_LOCK_FILE);
  if (typeof holder === 'object' && 'host' in holder)
    return new LocalStackError(
      'PERSIST_DIR_IN_USE',
      `--persist ${JSON.stringify(dir)} is in use by a local stack on another host (pid ${holder.pid} on ${JSON.stringify(holder.host)}, this is ${JSON.stringify(hostname())}); allowed: a folder no other run uses — stop that run, or choose another folder (if that run has ended, delete ${lock})`,
    );
  if (typeof holder === 'object')
    return new LocalStackError(
      'PERSIST_DIR_IN_USE',
      `--persist ${JSON.stringify(dir)} has a lock that names no process: ${JSON.stringify(lock)} ${holder.found}; allowed: a folder no other run uses — if none uses it, delete ${JSON.stringify(lock)}`,
    );
  const by =
    holder === 'takeover'
      ? `another local stack taking it over (${PERSIST_LOCK_FILE}${TAKEOVER_SUFFIX}: delete it if no other run is starting)`
      : holder === undefined
        ? `another local stack writing its lock (${PERSIST_LOCK_FILE} names no process yet)`
        : `another local stack (pid ${holder}${holder === PID ? ', this process' : ''})`;
  // A process id can outlive its run: after a reboot, another process may have been given it.
  const stale =
    holder === undefined
      ? ` (if no run is starting on it, delete ${lock})`
      : typeof holder !== 'number' || holder === PID
        ? ''
        : ` (if process ${holder} is no local stack, its id was reused after the run that held the folder ended: delete ${lock})`;
  return new LocalStackError(
    'PERSIST_DIR_IN_USE',
    `--persist ${JSON.stringify(dir)} is in use by ${by}; allowed: a folder no other run uses — stop that run, or choose another folder${stale}`,
  );
}

/**
 * Replaces the lock of the ended run `stale` with this process's. The takeover file lets one run
 * at a time do so, and the lock is read again under it: two runs that both found the same dead
 * holder would otherwise each delete the other's new lock.
 */
async function takeOver(path: string, dir: string, stale: number | undefined): Promise<void> {
  const guard = `${path}${TAKEOVER_SUFFIX}`;
  for (let attempt = 0; ; attempt++) {
    try {
      await createWhole(guard, LOCK_TEXT);
      break;
    } catch (error) {
      // A folder that cannot be written any more (read-only, say) fails here, not as the lock would be written.
      if (!alreadyThere(error, guard)) throw unusable(dir, error);
      if (attempt > 0 || !(await removeStaleGuard(guard))) throw inUse(dir, 'takeover');
    }
  }
  try {
    const holder = await holderOf(path);
    if (typeof holder === 'object' || (holder !== stale && isLive(holder)) || (await mayBeWritten(path, dir, holder)))
      throw inUse(dir, holder);
    await unlink(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw unusable(dir, error);
    });
    await createWhole(path, LOCK_TEXT).catch(async (error: unknown) => {
      // A run that found no lock at all took the folder in between.
      if (alreadyThere(error, path)) throw inUse(dir, await holderOf(path));
      throw unusable(dir, error);
    });
  } finally {
    await unlink(guard).catch(() => {});
  }
}

/**
 * Removes the takeover guard of a run that was killed as it took the folder over: one naming a
 * process of this host that no longer runs (or none). Resolves `true` when the guard is gone. Two
 * runs that both found it so must not both go on: the guard is pinned by a link of this run's
 * own, and removed only while that link and the guard's own name are its only names (the link
 * of a second remover that came meanwhile makes three), so of two removers at most one removes it.
 * A pin left by a remover that was killed is removed before (`removeEndedLeftovers`): only its
 * maker's end lets it go, so no remover that still runs loses its own. Where the file system has
 * no hard links, the guard is left (`false`).
 */
async function removeStaleGuard(guard: string): Promise<boolean> {
  const found = await holderOf(guard);
  if (typeof found === 'object' || isLive(found)) return false;
  const pin = ownLeftover(guard, 'reap');
  try {
    await link(guard, pin);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
  try {
    // Read again through the pin: the guard found stale may have been replaced by a live one meanwhile.
    const pinned = await holderOf(pin);
    if (typeof pinned === 'object' || isLive(pinned)) return false;
    const mine = await stat(pin);
    const current = await stat(guard).catch(() => undefined);
    if (current === undefined) return true;
    if (mine.nlink !== 2 || current.ino !== mine.ino || current.dev !== mine.dev) return false;
    await unlink(guard);
    return true;
  } catch {
    return false;
  } finally {
    await unlink(pin).catch(() => {});
  }
}

/**
 * Whether the lock at `path`, naming no process, may be one another run is writing: where the
 * file system has no hard links, a lock is written in place and names no process for a moment
 * after it appears, so it cannot be told from one a killed run left, and is not taken over.
 * Elsewhere a lock appears whole, and one naming no process was left by a killed run.
 */
async function mayBeWritten(path: string, dir: string, holder: Holder): Promise<boolean> {
  if (holder !== undefined) return false;
  const there = await stat(path).then(
    () => true,
    () => false,
  );
  return there && !(await hardLinksWork(path).catch((error: unknown) => Promise.reject(unusable(dir, error))));
}

/** A `--persist` path that is no folder this process can write to: a file, say, or read-only. */
const unusable = (dir: string, error: unknown): LocalStackError =>
  new LocalStackError(
    'PERSIST_DIR_UNUSABLE',
    `--persist ${JSON.stringify(dir)} cannot be used as a folder (${(error as Error).message}); allowed: a writable folder path`,
    { cause: error },
  );

/**
 * Writes this process's lock into `dir`, creating the folder when missing: `locked` is `false`
 * when a lock is there; `createdDir` the first folder this call created.
 */
async function writeLock(dir: string, path: string): Promise<{ locked: boolean; createdDir: string | undefined }> {
  let createdDir: string | undefined;
  try {
    createdDir = await makeFolders(dir);
    await createWhole(path, LOCK_TEXT);
    return { locked: true, createdDir };
  } catch (error) {
    // EEXIST for the lock's own path is a lock.
    if (alreadyThere(error, path)) return { locked: false, createdDir };
    if (createdDir !== undefined) await rm(createdDir, { recursive: true, force: true }).catch(() => {});
    throw unusable(dir, error);
  }
}

/**
 * Takes the folder for this process, creating it when missing. Two DynamoDB Locals on one data
 * file both stop answering, so a second local stack on a folder in use is refused before
 * anything starts; a lock left by a process that has ended (killed, say) is taken over. A path
 * that cannot be a writable folder is refused with `PERSIST_DIR_UNUSABLE`.
 */
export async function lockPersistDir(dir: string): Promise<PersistLock> {
  const path = join(dir, PERSIST_LOCK_FILE);
  const key = resolve(dir);
  // Marked before anything is looked at: a second start here would find this process's lock, and take it as stale.
  if (heldHere.has(key)) throw inUse(dir, PID);
  heldHere.add(key);
  // The folder by what it is (device and inode), once it exists: another path to it (a symbolic link, a bind mount) is the same folder.
  const marks = [key];
  const unmark = (): void => {
    for (const mark of marks) heldHere.delete(mark);
  };
  let createdDir: string | undefined;
  try {
    const written = await writeLock(dir, path);
    createdDir = written.createdDir;
    const folder = await stat(dir).then(
      ({ dev, ino }) => `folder ${dev}:${ino}`,
      () => undefined,
    );
    if (folder !== undefined) {
      if (heldHere.has(folder)) throw inUse(dir, PID);
      heldHere.add(folder);
      marks.push(folder);
    }
    // Before the guard is looked at: a pin a killed run left on it would keep it from being removed.
    await removeEndedLeftovers(dir, PERSIST_LOCK_FILE);
    if (!written.locked) {
      const holder = await holderOf(path);
      if (typeof holder === 'object' || isLive(holder) || (await mayBeWritten(path, dir, holder))) throw inUse(dir, holder);
      await takeOver(path, key, holder);
    }
  } catch (error) {
    unmark();
    throw error;
  }
  let released = false;
  // A lock that cannot be deleted names this process: the next start takes it over as stale, here or in another process.
  const release = async (): Promise<void> => {
    if (released) return;
    released = true;
    await unlink(path).catch(() => {});
    unmark();
  };
  return {
    createdDir,
    release,
    discard: async (removeCreated) => {
      if (released || createdDir === undefined || !removeCreated) return release().then(() => undefined);
      released = true;
      const aside = `${createdDir}.${PID}.removed`;
      const failure = await rename(createdDir, aside).then(
        () =>
          rm(aside, { recursive: true, force: true }).then(
            () => undefined,
            (error: unknown) => notRemoved(createdDir, error, aside),
          ),
        async (error: unknown) => {
          await unlink(path).catch(() => {});
          return notRemoved(createdDir, error, createdDir);
        },
      );
      unmark();
      return failure;
    },
  };
}

/** A folder a failed start created and could not remove: what is left of it, where, and why. */
const notRemoved = (createdDir: string, error: unknown, left: string): Error =>
  new Error(
    `the --persist folder ${JSON.stringify(createdDir)} this start created could not be removed (${errorMessage(error)}); delete ${JSON.stringify(left)}`,
    { cause: error },
  );
