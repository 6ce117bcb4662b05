import { readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalStackError } from './local-stack-error.js';

/** The file in a `--persist` folder that names the process using it. */
export const PERSIST_LOCK_FILE = '.lock';

/** A held lock on a data folder; `release()` gives it up (once, later calls do nothing). */
export interface PersistLock {
  release(): Promise<void>;
}

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
 * Takes the folder for this process. Two DynamoDB Locals on one data file both stop answering,
 * so a second local stack on a folder in use is refused before anything starts; a lock left
 * by a process that has ended (killed, say) is taken over.
 */
export async function lockPersistDir(dir: string): Promise<PersistLock> {
  const path = join(dir, PERSIST_LOCK_FILE);
  for (let attempt = 1; ; attempt++) {
    try {
      await writeFile(path, `${process.pid}\n`, { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number.parseInt(await readFile(path, 'utf8').catch(() => ''), 10);
      if (Number.isInteger(holder) && holder > 0 && isRunning(holder)) {
        throw new LocalStackError(
          'PERSIST_DIR_IN_USE',
          `--persist ${JSON.stringify(dir)} is in use by another local stack (pid ${holder}${holder === process.pid ? ', this process' : ''}); allowed: a folder no other run uses — stop that run, or choose another folder`,
        );
      }
      // Its holder has ended (or the file is unreadable): taken over. A second try that meets
      // another file means another run took it over first.
      if (attempt > 1) throw error;
      await unlink(path).catch(() => {});
    }
  }
  let released = false;
  return {
    release: async () => {
      if (released) return;
      released = true;
      await unlink(path).catch(() => {});
    },
  };
}
