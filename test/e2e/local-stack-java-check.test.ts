import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { config } from '../../examples/orders/outbox.config.js';
import { LocalStartError, startDynamoDbLocal } from '../../shared/local/stack/dynamodb-local.js';
import { startLocalStack } from '../../shared/local/stack/local-stack.js';
import { freePort } from '../../shared/local/stack/ports.js';
import { dynamoDbLocalJavaOn as javaOn } from '../helpers/processes.js';

/*
 * A start asks `java -version` once: the stack checks Java before anything starts, and DynamoDB
 * Local, started by it, does not ask again. The `java` first on the PATH notes each call in a file
 * and then runs the real one, DynamoDB Local's too.
 */
const dir = mkdtempSync(join(tmpdir(), 'outbox-java-calls-'));
const calls = join(dir, 'calls');
const realJava = execFileSync('sh', ['-c', 'command -v java'], { encoding: 'utf8' }).trim();
writeFileSync(join(dir, 'java'), `#!/bin/sh\necho "$*" >> '${calls}'\nexec '${realJava}' "$@"\n`);
chmodSync(join(dir, 'java'), 0o755);
const originalPath = process.env.PATH;
afterAll(() => {
  process.env.PATH = originalPath;
  rmSync(dir, { recursive: true, force: true });
});

describe('the Java check of a start', { timeout: 120_000 }, () => {
  it('runs `java -version` once per start of the local stack', async () => {
    process.env.PATH = `${dir}:${originalPath}`;
    const dynamoDbPort = await freePort();
    const controller = new AbortController();
    // Aborted once DynamoDB Local answers: the rest of the start asks Java nothing.
    const error = await startLocalStack({
      config,
      dynamoDbPort,
      signal: controller.signal,
      onStep: (step) => {
        if (step === 'starting the SNS/SQS emulator') controller.abort(new Error('enough'));
      },
    }).then(
      async (stack) => {
        await stack.stop();
        return new Error('the start resolved');
      },
      (e: unknown) => e,
    );
    process.env.PATH = originalPath;

    expect(error).toMatchObject({ code: 'START_ABORTED', message: expect.stringContaining('while starting the SNS/SQS emulator') });
    const lines = readFileSync(calls, 'utf8').trim().split('\n');
    expect(lines.filter((line) => line === '-version')).toHaveLength(1);
    // DynamoDB Local's own Java went through it too, and has ended.
    expect(lines.filter((line) => line.includes(`-port ${dynamoDbPort} -sharedDb`))).toHaveLength(1);
    expect(javaOn(dynamoDbPort)).toEqual([]);
  });

  it('still checks Java when DynamoDB Local is started on its own', async () => {
    const noJava = mkdtempSync(join(tmpdir(), 'outbox-no-java-'));
    process.env.PATH = noJava;
    const error = await startDynamoDbLocal().then(
      async (ddb) => {
        await ddb.stop();
        return new Error('DynamoDB Local started');
      },
      (e: unknown) => e,
    );
    process.env.PATH = originalPath;
    rmSync(noJava, { recursive: true, force: true });

    expect(error).toBeInstanceOf(LocalStartError);
    expect((error as Error).message).toMatch(/^Java was not found: DynamoDB Local needs it; /);
  });
});
