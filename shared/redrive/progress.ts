import type { RedriveProgress } from './types.js';

/** Where a progress line is drawn; `process.stderr` fits. */
export interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): boolean;
}

const WIDTH = 30;

/** One progress line: a bar when the total is known, then the counts. */
export function progressLine(progress: RedriveProgress): string {
  const total = Math.max(progress.total, progress.processed);
  const ratio = total === 0 ? 1 : progress.processed / total;
  const filled = Math.round(ratio * WIDTH);
  const bar = `[${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}]`;
  return `${bar} ${progress.processed}/${total} moved ${progress.moved} failed ${progress.failed} skipped ${progress.skipped}`;
}

/**
 * A progress bar redrawn in place on a TTY; nothing at all on a pipe or file, where the final
 * summary is enough.
 *
 * @example
 * ```ts
 * const bar = progressBar(process.stderr);
 * await redriveRelayDlq({ ..., onProgress: bar.update });
 * bar.done();
 * ```
 */
export function progressBar(stream: ProgressStream): { update: (progress: RedriveProgress) => void; done: () => void } {
  let drawn = false;
  return {
    update: (progress) => {
      if (!stream.isTTY) return;
      stream.write(`\r\u001b[2K${progressLine(progress)}`);
      drawn = true;
    },
    done: () => {
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}
