import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkJava } from '../../shared/local/stack/dynamodb-local.js';

const originalPath = process.env.PATH;
let dir: string | undefined;

afterEach(() => {
  process.env.PATH = originalPath;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Puts a `java` first on the PATH that prints `version` the way `java -version` does (on stderr). */
function fakeJava(version: string): void {
  dir = mkdtempSync(join(tmpdir(), 'fake-java-'));
  const java = join(dir, 'java');
  writeFileSync(java, `#!/bin/sh\necho 'openjdk version "${version}"' >&2\n`);
  chmodSync(java, 0o755);
  process.env.PATH = `${dir}:${originalPath}`;
}

describe('Java version check', () => {
  it.each([
    ['1.8.0_392', 'Java 8 is too old'],
    ['11.0.22', 'Java 11 is too old'],
  ])('names the major version of an old Java (%s)', (version, message) => {
    fakeJava(version);

    expect(() => checkJava()).toThrow(`${message}: DynamoDB Local needs 17 or newer`);
  });

  it('accepts Java 17 and newer', () => {
    fakeJava('21.0.3');

    expect(() => checkJava()).not.toThrow();
  });
});
