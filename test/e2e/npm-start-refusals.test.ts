import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** `npm start` with `args`, run to its end: its exit code and everything it wrote. */
function npmStart(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  const npm = spawn('npm', ['start', '--', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  npm.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  npm.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return new Promise((resolve) => npm.once('close', (code) => resolve({ code, output })));
}

describe('npm start, refused before it starts anything', { timeout: 60_000 }, () => {
  it('names an unknown flag in one line, npm start named once, exit code 2', async () => {
    const { code, output } = await npmStart(['--bogus']);

    expect(code).toBe(2);
    const line = output.split('\n').find((l) => l.includes('got "--bogus"'));
    expect(line).toMatch(/^Unknown npm start option: got "--bogus"; allowed: --port N, .* \(see npm start -- --help\)$/);
  });

  it('leaves no --persist folder behind when the API port is taken', async () => {
    const holder: Server = createServer();
    const port = await new Promise<number>((resolve) =>
      holder.listen(0, '127.0.0.1', () => resolve((holder.address() as AddressInfo).port)),
    );
    const base = mkdtempSync(join(tmpdir(), 'outbox-refused-'));
    dirs.push(base);
    const persist = join(base, 'data');
    try {
      const { code, output } = await npmStart(['--port', String(port), '--persist', persist]);

      expect(code).toBe(1);
      expect(output).toContain(`npm start: port ${port} for the example API is already in use`);
      // The hint names a port near the one asked for, not the default the user moved away from.
      expect(output).toContain(`(e.g. npm start -- --port ${port + 1}, or --port 0 for a free one)`);
      expect(existsSync(persist)).toBe(false);
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });

  it('names --persist, in one line, when its path is a file', async () => {
    const base = mkdtempSync(join(tmpdir(), 'outbox-refused-'));
    dirs.push(base);
    const file = join(base, 'a-file');
    writeFileSync(file, 'not a folder');

    const { code, output } = await npmStart(['--port', '0', '--persist', file]);

    expect(code).toBe(1);
    expect(output).toMatch(
      new RegExp(
        `npm start: --persist "${file}" cannot be used as a folder \\(ENOTDIR: not a directory[^\\n]*\\); allowed: a writable folder path\\n`,
      ),
    );
    expect(output).not.toContain('    at ');
  });
});
