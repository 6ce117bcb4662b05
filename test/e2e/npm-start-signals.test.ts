import { type ChildProcess, spawn } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait.js';

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const groups: number[] = [];

// Whatever a failing test left running goes, Java included (the group holds every process npm started).
afterEach(() => {
  for (const group of groups.splice(0)) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** `npm start` as a user runs it, in a process group of its own (as a terminal gives it), once it is up. */
async function npmStart(): Promise<{ npm: ChildProcess; output: () => string; javaPid: number; exited: Promise<number | null> }> {
  let output = '';
  const npm = spawn('npm', ['start', '--', '--port', String(await freePort())], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  groups.push(npm.pid as number);
  npm.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  npm.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  // 'close', not 'exit': npm's exit can be reported before the last of the output is read, and
  // the stack (which took npm's shell over) shares the pipes, so they close only when it has ended too.
  const exited = new Promise<number | null>((resolve) => npm.once('close', (code) => resolve(code)));
  await waitFor(() => output.includes('Try:'), { timeoutMs: 90_000, what: `the local stack to start; output so far:\n${output}` });
  const javaPid = Number(/java pid (\d+)/.exec(output)?.[1]);
  expect(alive(javaPid)).toBe(true);
  return { npm, output: () => output, javaPid, exited };
}

describe('npm start, stopped by a signal', { timeout: 180_000 }, () => {
  it('Ctrl-C (SIGINT to the whole process group, npm included) stops everything in order, Java included', async () => {
    const { npm, output, javaPid, exited } = await npmStart();

    process.kill(-(npm.pid as number), 'SIGINT');
    await exited;

    expect(output()).toContain('SIGINT: stopping…');
    expect(output()).toContain(`stopped; DynamoDB Local (java pid ${javaPid}) has ended`);
    expect(alive(javaPid)).toBe(false);
  });

  it('SIGTERM to the npm process alone (as a process manager sends it) stops everything in order, Java included', async () => {
    const { npm, output, javaPid, exited } = await npmStart();

    npm.kill('SIGTERM');
    await exited;
    await waitFor(() => !alive(javaPid), { timeoutMs: 20_000, what: `java pid ${javaPid} to end` });

    expect(output()).toContain('SIGTERM: stopping…');
    expect(output()).toContain(`stopped; DynamoDB Local (java pid ${javaPid}) has ended`);
  });
});
