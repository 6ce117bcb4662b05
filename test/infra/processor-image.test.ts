import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Runtime } from 'aws-cdk-lib/aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prebuiltAssetDir } from '../../infra/private/assets.js';

// No Docker engine is needed: the image only copies the prebuilt bundles of its folder (made by
// scripts/build.mjs, which the test run's global setup calls), and those are started here with
// node as the container would start them.
const out = prebuiltAssetDir('processor');
const DOCKERFILE = readFileSync(join(out, 'Dockerfile'), 'utf8');

describe('processor image', { timeout: 120_000 }, () => {
  it('runs on the Node.js major of the Lambda functions (Runtime.NODEJS_LATEST)', () => {
    const major = /^nodejs(\d+)\.x$/.exec(Runtime.NODEJS_LATEST.name)?.[1];
    expect(major).toBeDefined();
    expect([...DOCKERFILE.matchAll(/^FROM node:(\d+)-slim\b/gm)].map((m) => m[1])).toEqual([major]);
  });

  it('copies exactly the bundles of its folder, so the build context is complete', () => {
    const copied = /^COPY (.+) \.\/$/m.exec(DOCKERFILE)?.[1]?.split(' ');
    expect(copied).toEqual(['main.mjs', 'main.mjs.map', 'health-check.mjs', 'health-check.mjs.map']);
    for (const file of copied ?? []) expect(existsSync(join(out, file)), file).toBe(true);
  });

  it('runs as a non-root user, with a health check and node as PID 1 in exec form', () => {
    expect(DOCKERFILE).toMatch(/^FROM node:\d+-slim\b/m);
    expect(DOCKERFILE).toMatch(/^USER node$/m);
    expect(DOCKERFILE).toMatch(/^HEALTHCHECK .*CMD \["node", "health-check\.mjs"\]$/m);
    expect(DOCKERFILE).toMatch(/^CMD \["node", "main\.mjs"\]$/m);
  });

  it('main.mjs loads every module of the bundle and fails fast, naming the missing setting', () => {
    const run = spawnSync(process.execPath, [join(out, 'main.mjs')], {
      cwd: out,
      encoding: 'utf8',
      // As the image sets them, source maps included (the error then points at the sources).
      env: {
        PATH: process.env.PATH,
        AWS_REGION: 'eu-west-1',
        NODE_OPTIONS: '--enable-source-maps',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    // One structured log line with the EnvironmentError, its stack mapped back to the sources.
    const line = run.stderr.split('\n').find((l) => l.includes('"start-up failed"'));
    expect(line).toBeDefined();
    const logged = JSON.parse(line as string) as { level: string; error: { code: string; variable: string; stack: string } };
    expect(logged).toMatchObject({ level: 'ERROR', error: { code: 'INVALID_ENVIRONMENT', variable: 'OUTBOX_CONFIG' } });
    expect(logged.error.stack).toContain('functions/processor/main.ts');
    expect(run.stderr).not.toMatch(/Cannot find (module|package)|Dynamic require|is not defined/);
  });

  describe('health-check.mjs', () => {
    let server: ReturnType<typeof createServer>;
    let status = 200;
    let port: number;

    beforeAll(async () => {
      server = createServer((request, response) => {
        response.statusCode = request.url === '/health' ? status : 404;
        response.end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });

    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    // Asynchronous: the server answering the check lives in this process.
    const run = (healthPort: string): Promise<{ code: number | null; stderr: string }> =>
      new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [join(out, 'health-check.mjs')], {
          env: { PATH: process.env.PATH, OUTBOX_PROCESSOR_HEALTH_PORT: healthPort },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
        });
        child.once('error', reject);
        child.once('close', (code) => resolve({ code, stderr }));
      });
    const check = async (healthPort: number): Promise<number | null> => (await run(String(healthPort))).code;

    it('exits 0 when the worker answers 200, and 1 when it answers otherwise', async () => {
      status = 200;
      expect(await check(port)).toBe(0);
      status = 503;
      expect(await check(port)).toBe(1);
    });

    it('exits 1 when nothing listens', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const freePort = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      expect(await check(freePort)).toBe(1);
    });

    it.each([
      ['', 'is not set (got "")'],
      [' ', 'is not set (got " ")'],
      ['80a', 'got "80a"'],
      ['0', 'got "0"'],
      ['65536', 'got "65536"'],
    ])('exits 1 on the port setting %j, saying what was given and what is allowed', async (value, given) => {
      const { code, stderr } = await run(value);
      expect(code).toBe(1);
      expect(stderr).toContain(`Environment variable OUTBOX_PROCESSOR_HEALTH_PORT: ${given}; allowed: a whole number from 1 to 65535`);
    });
  });
});
