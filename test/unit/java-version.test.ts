import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkJava } from '../../shared/local/stack/java.js';

const originalPath = process.env.PATH;
let dir: string | undefined;

afterEach(() => {
  process.env.PATH = originalPath;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Puts a `java` first on the PATH that runs `script` (by default, prints `version` the way `java -version` does, on stderr). */
function fakeJava(version: string, script = `echo 'openjdk version "${version}"' >&2`): void {
  dir = mkdtempSync(join(tmpdir(), 'fake-java-'));
  const java = join(dir, 'java');
  writeFileSync(java, `#!/bin/sh\n${script}\n`);
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

  // It was called too old, as "Java (unknown version)": the fix it gave (install 17) was no fix for a Java 17 that does not run.
  it('says what a java that gives no version said, and its exit code', () => {
    fakeJava('', "echo 'Error: could not find libjava.so' >&2; exit 1");

    expect(() => checkJava()).toThrow(
      '`java -version` did not say which Java it is (exit code 1; it said: Error: could not find libjava.so): DynamoDB Local needs Java 17 or newer; check that `java` runs, or install Java 17 or newer',
    );
  });
});
