import { vi } from 'vitest';

/** A Powertools Logger line: it has a `level`. */
const isLogLine = (line: object): boolean => 'level' in line;

/** A CloudWatch embedded-metric-format line, as Powertools' Metrics writes it. */
export const isMetricsLine = (line: object): boolean => '_aws' in line;

/**
 * The JSON lines written to stdout and stderr (where Powertools' Logger writes, errors and
 * warnings to stderr) until `stop()` that `keep` selects (by default, log lines), parsed and kept
 * instead of printed; other output goes through.
 */
export function captureLogs(keep: (line: object) => boolean = isLogLine): { readonly lines: Record<string, unknown>[]; stop(): void } {
  const lines: Record<string, unknown>[] = [];
  const spies = [process.stdout, process.stderr].map((stream) => {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    return vi.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
      try {
        const parsed: unknown = JSON.parse(String(chunk));
        if (typeof parsed === 'object' && parsed !== null && keep(parsed)) {
          lines.push(parsed as Record<string, unknown>);
          return true;
        }
      } catch {
        // Not a log line: it goes through.
      }
      return write(chunk, ...rest);
    }) as typeof stream.write);
  });
  return {
    lines,
    stop: () => {
      for (const spy of spies) spy.mockRestore();
    },
  };
}
