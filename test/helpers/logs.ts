import { vi } from 'vitest';

/**
 * The JSON log lines written to stdout and stderr (where Powertools' Logger writes, errors and
 * warnings to stderr) until `stop()`, parsed and kept instead of printed; other output goes through.
 */
export function captureLogs(): { readonly lines: Record<string, unknown>[]; stop(): void } {
  const lines: Record<string, unknown>[] = [];
  const spies = [process.stdout, process.stderr].map((stream) => {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    return vi.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
      try {
        const parsed: unknown = JSON.parse(String(chunk));
        if (typeof parsed === 'object' && parsed !== null && 'level' in parsed) {
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
