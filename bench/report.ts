import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

const FILE = new URL('../BENCHMARKS.md', import.meta.url);
const HEADER = `# Benchmarks

Every figure is measured side by side with its peer or ceiling in the same run, on the same
machine, so the ratios hold even where the absolute numbers move with load. Each section says
the command that produced it; \`npm run bench\` reruns them all.
`;

/** Percentile of sorted numbers, nearest-rank. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

export const machine = (): string =>
  `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;

/** Replaces (or appends) the `## title` section of BENCHMARKS.md, leaving the others as they are. */
export function recordSection(title: string, body: string): void {
  let text: string;
  try {
    text = readFileSync(FILE, 'utf8');
  } catch {
    text = HEADER;
  }
  const section = `## ${title}\n\n${body.trim()}\n`;
  const start = text.indexOf(`\n## ${title}\n`);
  if (start === -1) {
    text = `${text.trimEnd()}\n\n${section}`;
  } else {
    const next = text.indexOf('\n## ', start + 1);
    text = `${text.slice(0, start + 1)}${section}${next === -1 ? '' : text.slice(next)}`;
  }
  writeFileSync(FILE, text.endsWith('\n') ? text : `${text}\n`);
}
