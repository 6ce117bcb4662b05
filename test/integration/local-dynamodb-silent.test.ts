import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalStartError, startDynamoDbLocal } from '../../shared/local/stack/dynamodb-local.js';

/*
 * A `java` first on PATH that says it is 17 and, run as DynamoDB Local, accepts connections on
 * its -port and never answers: a Java that hangs once it has bound its port.
 */
const bin = mkdtempSync(join(tmpdir(), 'outbox-silent-java-'));
writeFileSync(
  join(bin, 'java'),
  `#!/bin/sh
if [ "$1" = "-version" ]; then echo 'openjdk version "17.0.1"' >&2; exit 0; fi
while [ "$#" -gt 0 ]; do if [ "$1" = "-port" ]; then port="$2"; fi; shift; done
exec "${process.execPath}" -e "require('node:net').createServer(() => {}).listen(Number(process.argv[1]), '0.0.0.0')" "$port"
`,
);
chmodSync(join(bin, 'java'), 0o755);
const path = process.env.PATH;
afterAll(() => {
  process.env.PATH = path;
  rmSync(bin, { recursive: true, force: true });
});

describe('DynamoDB Local that takes connections and never answers', () => {
  it('fails the start at its start timeout, not never', async () => {
    process.env.PATH = `${bin}:${path}`;
    const at = Date.now();

    const error = await startDynamoDbLocal({ startTimeoutMs: 3_000 }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(LocalStartError);
    expect((error as Error).message).toMatch(/^DynamoDB Local did not answer on http:\/\/127\.0\.0\.1:\d+ within the start timeout/);
    expect(Date.now() - at).toBeLessThan(20_000);
  }, 40_000);
});
