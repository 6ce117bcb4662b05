import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { resolve } from 'node:path';

/** Where results are recorded: BENCHMARKS.md, or `BENCHMARKS_FILE` for a trial run that must leave it as it is. */
const FILE = process.env.BENCHMARKS_FILE ? resolve(process.env.BENCHMARKS_FILE) : new URL('../BENCHMARKS.md', import.meta.url);
const HEADER = `# Benchmarks

Every figure is measured side by side with its peer or ceiling in the same run, on the same
machine, so the ratios hold even where the absolute numbers move with load. Each section says
the command that produced it; \`npm run bench\` reruns them all.
`;

export { percentile } from '../shared/percentile.js';

export const machine = (): string =>
  `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;

/**
 * Rewrites the top of BENCHMARKS.md, before the first section, with the machine, the date and
 * the command of a full run; the sections stay as they are.
 */
export function recordRun(command: string, date: Date = new Date()): void {
  let text: string;
  try {
    text = readFileSync(FILE, 'utf8');
  } catch {
    text = '';
  }
  const first = text.indexOf('\n## ');
  const sections = first === -1 ? '' : text.slice(first + 1);
  const run = `Last full run: \`${command}\` on ${date.toISOString().slice(0, 16).replace('T', ' ')} UTC, ${machine()}.\n`;
  writeFileSync(FILE, `${HEADER}\n${run}${sections === '' ? '' : `\n${sections}`}`);
}

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
