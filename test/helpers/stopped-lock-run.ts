import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { expect } from 'vitest';
import { settlesWithin, waitFor } from './wait.js';

/*
 * A real run's `--persist` start (another process) stopped at a moment of its lock: its `link`
 * (Node's own, wrapped before the lock's module is loaded) kills it there, or holds it, alive.
 */
const held: ChildProcess[] = [];

/** Kills the runs `runStoppedAt` started and holds (for an `afterEach`). */
export function endStoppedRuns(): void {
  for (const child of held.splice(0)) child.kill('SIGKILL');
}

/**
 * Another run's start on `dir`, stopped at its `link` to `ending` (`.lock`: the draft's link into
 * place; `.reap`: the pin on a stale guard, once made): killed there, or, with `hold`, left
 * running there. `host` is the host name it reports. Resolves once it is dead or held.
 */
export async function runStoppedAt(
  dir: string,
  ending: string,
  { hold = false, host }: { hold?: boolean; host?: string } = {},
): Promise<ChildProcess> {
  const module = resolve('shared/local/stack/persist-lock.ts');
  const script = `import { createRequire, syncBuiltinESMExports } from 'node:module';
const require = createRequire(import.meta.url);
const fs = require('node:fs/promises');
const realLink = fs.link;
const stop = async () => {
  if (${hold}) { console.log('held'); setInterval(() => {}, 60_000); await new Promise(() => {}); }
  process.kill(process.pid, 'SIGKILL');
};
fs.link = async (from, to) => {
  const here = String(to).endsWith(${JSON.stringify(ending)});
  if (here && ${JSON.stringify(ending)} === '/.lock') await stop();
  await realLink(from, to);
  if (here) await stop();
};
${host === undefined ? '' : `require('node:os').hostname = () => ${JSON.stringify(host)};`}
syncBuiltinESMExports();
const { lockPersistDir } = await import(${JSON.stringify(module)});
await lockPersistDir(${JSON.stringify(dir)}).then(() => console.log('locked'), (e) => console.log(e.code ?? e.message));`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  held.push(child);
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const ended = new Promise<void>((done) => child.once('exit', () => done()));
  if (hold) await waitFor(() => out.includes('held') || child.exitCode !== null, { timeoutMs: 30_000, what: 'the run held at its link' });
  else await settlesWithin(ended, 30_000, 'the run killed at its link');
  expect({ signal: child.signalCode, out: out.trim() }).toEqual({ signal: hold ? null : 'SIGKILL', out: hold ? 'held' : '' });
  return child;
}
