import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { recordRun } from './report.js';

/*
 * `npm run bench`: every benchmark of the project, one after the other (they would disturb
 * each other's figures side by side), each rewriting its own section of BENCHMARKS.md; then
 * the header gets the machine, the date and this command. Benchmarks are the package's
 * `bench:*` scripts, so one added later runs without touching this file.
 */
const PREFERRED_ORDER = ['bench:write', 'bench:decode', 'bench:relay', 'bench:latency', 'bench:local'];

const { scripts = {} } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  scripts?: Record<string, string>;
};
const available = Object.keys(scripts).filter((name) => name.startsWith('bench:'));
const order = [
  ...PREFERRED_ORDER.filter((name) => available.includes(name)),
  ...available.filter((n) => !PREFERRED_ORDER.includes(n)).sort(),
];
for (const name of PREFERRED_ORDER.filter((n) => !available.includes(n))) {
  process.stdout.write(`npm run bench: skipping ${name}, which this version does not have\n`);
}

const failed: string[] = [];
for (const name of order) {
  process.stdout.write(`\nnpm run bench: ${name} (${order.indexOf(name) + 1}/${order.length})\n`);
  const result = spawnSync('npm', ['run', '--silent', name], { stdio: 'inherit' });
  if (result.status !== 0) failed.push(`${name} (exit ${result.status ?? result.signal})`);
}
recordRun('npm run bench');
if (failed.length > 0) {
  process.stderr.write(`npm run bench: failed: ${failed.join(', ')}; their sections of BENCHMARKS.md were left as they were\n`);
  process.exitCode = 1;
} else {
  process.stdout.write(`\nnpm run bench: ${order.length} benchmarks done; BENCHMARKS.md rewritten\n`);
}
