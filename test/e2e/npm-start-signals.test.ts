import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RELAY_CHECKPOINT_FILE } from '../../shared/local/event-source/checkpoints.js';
import { dynamoDbLocalJavaOn as javaOn } from '../helpers/processes.js';
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
async function npmStart(
  args: readonly string[] = [],
): Promise<{ npm: ChildProcess; output: () => string; javaPid: number; exited: Promise<number | null>; port: number }> {
  let output = '';
  const port = await freePort();
  const npm = spawn('npm', ['start', '--', '--port', String(port), ...args], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
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
  return { npm, output: () => output, javaPid, exited, port };
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

  it("a second SIGTERM while it stops (past the repeat of the first) leaves at once with 143, SIGTERM's code, not SIGINT's 130", async () => {
    const { npm, output, javaPid, exited } = await npmStart();
    // DynamoDB Local no longer answers: the stop waits on it (for its end, at most its 5 s kill timer).
    process.kill(javaPid, 'SIGSTOP');
    try {
      npm.kill('SIGTERM');
      await waitFor(() => output().includes('SIGTERM: stopping…'), { what: 'the stop to begin' });
      // The stack's own process (npm's child: its script execs node). The second SIGTERM goes to it
      // alone: npm, signalled again once that child has left, would end by the signal itself.
      const [stackPid] = execFileSync('pgrep', ['-P', String(npm.pid)], { encoding: 'utf8' })
        .trim()
        .split('\n')
        .map(Number);
      expect(stackPid).toBeGreaterThan(0);
      // A SIGTERM within a second of the first is the same one, delivered again, and ignored: send
      // one until the run leaves, which it does at the first past that second, long before the stop ends.
      let code: number | null | undefined;
      void exited.then((exitCode) => {
        code = exitCode;
      });
      await waitFor(
        () => {
          if (alive(stackPid as number)) process.kill(stackPid as number, 'SIGTERM');
          return code !== undefined;
        },
        { timeoutMs: 4_000, what: 'a second SIGTERM to end the run' },
      );

      expect(code).toBe(143);
      expect(output()).not.toContain('stopped;');
    } finally {
      // Ended with the run already, by its exit hook, or here.
      if (alive(javaPid)) process.kill(javaPid, 'SIGKILL');
    }
    await waitFor(() => !alive(javaPid), { timeoutMs: 20_000, what: `java pid ${javaPid} to end` });
  });

  it('a part that fails to stop is reported in one line, and the run still ends in order, Java included, with code 1', async () => {
    const persist = mkdtempSync(join(tmpdir(), 'outbox-stop-fails-'));
    try {
      const { npm, output, javaPid, exited, port } = await npmStart(['--persist', persist]);
      // The relay's checkpoints can no longer be written: a folder stands where their file goes.
      mkdirSync(join(persist, RELAY_CHECKPOINT_FILE), { recursive: true });
      const placed = await fetch(`http://127.0.0.1:${port}/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'stop-fails', total: 10, currency: 'EUR' }),
      });
      expect(placed.status).toBe(201);
      await waitFor(() => output().includes(RELAY_CHECKPOINT_FILE), { timeoutMs: 30_000, what: 'the checkpoint write to fail' });

      process.kill(-(npm.pid as number), 'SIGINT');
      const code = await exited;

      expect(output()).toMatch(/npm start: stopping failed: .*relay-checkpoints\.json/);
      expect(output()).toContain(`stopped; DynamoDB Local (java pid ${javaPid}) has ended`);
      expect(output()).not.toMatch(/^\s+at /m);
      expect(code).toBe(1);
      expect(alive(javaPid)).toBe(false);
      // Nothing half-written is left behind.
      expect(readdirSync(persist).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    } finally {
      rmSync(persist, { recursive: true, force: true });
    }
  });
});

describe('npm start, stopped by a signal before the banner', { timeout: 180_000 }, () => {
  /** `npm start` in a process group of its own, once DynamoDB Local's Java has been started (the stack is not up yet). */
  async function npmStarting(args: readonly string[]) {
    let output = '';
    const dynamoDbPort = await freePort();
    const npm = spawn('npm', ['start', '--', '--port', '0', '--dynamodb-port', String(dynamoDbPort), ...args], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    groups.push(npm.pid as number);
    const append = (chunk: Buffer) => {
      output += chunk.toString();
    };
    npm.stdout?.on('data', append);
    npm.stderr?.on('data', append);
    let ended: number | null | undefined;
    const exited = new Promise<number | null>((resolve) =>
      npm.once('close', (code) => {
        ended = code;
        resolve(code);
      }),
    );
    // A run that ends before its Java appears (a port taken meanwhile, say) ends the wait at once, and fails with what it said.
    await waitFor(() => ended !== undefined || javaOn(dynamoDbPort).length > 0, { timeoutMs: 90_000, what: "DynamoDB Local's Java" });
    if (javaOn(dynamoDbPort).length === 0)
      throw new Error(`npm start ended (exit code ${ended}) before DynamoDB Local's Java started; it said:\n${output}`);
    return { npm, output: () => output, exited, dynamoDbPort };
  }

  it('Ctrl-C while DynamoDB Local starts stops what had started, Java and the --persist folder it made included, and exits with 130', async () => {
    const persist = join(mkdtempSync(join(tmpdir(), 'outbox-start-sigint-')), 'data');
    try {
      const { npm, output, exited, dynamoDbPort } = await npmStarting(['--persist', persist]);

      process.kill(-(npm.pid as number), 'SIGINT');
      const code = await exited;

      expect(code).toBe(130);
      expect(output()).toContain('SIGINT: stopping…');
      expect(output()).toContain('stopped before the stack was up; nothing is left running');
      expect(output()).not.toContain('Try:');
      expect(output()).not.toMatch(/^\s+at /m);
      expect(javaOn(dynamoDbPort)).toEqual([]);
      // The folder this run created is gone, its lock with it.
      expect(existsSync(persist)).toBe(false);
    } finally {
      rmSync(join(persist, '..'), { recursive: true, force: true });
    }
  });

  it('SIGTERM to the npm process alone while the stack starts stops what had started, Java included, and exits with 143', async () => {
    const { npm, output, exited, dynamoDbPort } = await npmStarting([]);

    npm.kill('SIGTERM');
    const code = await exited;

    expect(code).toBe(143);
    expect(output()).toContain('SIGTERM: stopping…');
    expect(output()).toContain('stopped before the stack was up; nothing is left running');
    expect(javaOn(dynamoDbPort)).toEqual([]);
  });
});
