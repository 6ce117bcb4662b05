import { type LiveSnapshot, renderLiveLine, renderLiveView } from './live-view.js';

export interface LiveRefresherOptions {
  readonly snapshot: () => LiveSnapshot;
  /** @default process.stdout */
  readonly output?: NodeJS.WriteStream;
  /** Also kept below the view when written to while it is shown. @default process.stderr */
  readonly errorOutput?: NodeJS.WriteStream;
  /** Refresh period on a terminal. @default 1000 */
  readonly intervalMs?: number;
  /** Period of the one-line summary when the output is not a terminal. @default 5000 */
  readonly plainIntervalMs?: number;
}

/** A running live view. */
export interface LiveRefresher {
  /** Draws the final state and gives the terminal back. */
  stop(): void;
}

type Write = NodeJS.WriteStream['write'];
const ERASE_LINES = (n: number) => (n > 0 ? `\x1b[${n}F\x1b[J` : '');

/**
 * Shows the live view: on a terminal, redrawn in place (ANSI cursor movement) every second,
 * with anything else written to stdout or stderr meanwhile kept above it; otherwise one
 * summary line every few seconds.
 *
 * @example
 * ```ts
 * const view = startLiveRefresher({ snapshot: () => takeSnapshot(stack) });
 * process.once('SIGINT', () => view.stop());
 * ```
 */
export function startLiveRefresher(options: LiveRefresherOptions): LiveRefresher {
  const output = options.output ?? process.stdout;
  if (!output.isTTY) {
    const timer = setInterval(() => output.write(`${renderLiveLine(options.snapshot())}\n`), options.plainIntervalMs ?? 5000);
    return {
      stop() {
        clearInterval(timer);
        output.write(`${renderLiveLine(options.snapshot())}\n`);
      },
    };
  }
  const errorOutput = options.errorOutput ?? process.stderr;
  const writeOut: Write = output.write.bind(output) as Write;
  const writeErr: Write = errorOutput.write.bind(errorOutput) as Write;
  let height = 0;
  let previous: LiveSnapshot | undefined;
  let current: LiveSnapshot | undefined;
  let redraw: NodeJS.Immediate | undefined;

  const draw = () => {
    const width = Math.max(20, (output.columns || 100) - 1);
    const lines = renderLiveView(current ?? options.snapshot(), previous).map((line) =>
      line.length > width ? line.slice(0, width) : line,
    );
    writeOut(`${ERASE_LINES(height)}${lines.join('\n')}\n`);
    height = lines.length;
  };
  const tick = () => {
    previous = current;
    current = options.snapshot();
    draw();
  };
  /** Other output goes above the view: erase it, let the text through, draw it again soon after. */
  const passThrough = (write: Write): Write =>
    ((...args: unknown[]) => {
      if (height > 0) writeOut(ERASE_LINES(height));
      height = 0;
      redraw ??= setImmediate(() => {
        redraw = undefined;
        draw();
      });
      return (write as (...a: unknown[]) => boolean)(...args);
    }) as Write;
  output.write = passThrough(writeOut);
  errorOutput.write = passThrough(writeErr);
  writeOut('\x1b[?25l');
  tick();
  const timer = setInterval(tick, options.intervalMs ?? 1000);
  return {
    stop() {
      clearInterval(timer);
      if (redraw !== undefined) clearImmediate(redraw);
      output.write = writeOut;
      errorOutput.write = writeErr;
      tick();
      writeOut('\x1b[?25h');
    },
  };
}
