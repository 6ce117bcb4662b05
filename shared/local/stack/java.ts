import { spawnSync } from 'node:child_process';
import { LocalStartError } from '../errors.js';

/** How to get a Java DynamoDB Local can run on, for the messages that say it has none. */
export const JAVA_FIX = 'install Java 17 or newer, e.g. `apt-get install -y default-jre-headless`';

/** Fails with the fix when `java` is missing or older than 17. */
export function checkJava(): void {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (result.error !== undefined)
    throw new LocalStartError(`Java was not found: DynamoDB Local needs it; ${JAVA_FIX}`, { cause: result.error });
  const said = `${result.stderr}${result.stdout}`;
  const match = /version "(\d+)(?:\.(\d+))?/.exec(said);
  if (match === null) {
    // A Java that does not run (a broken install, say) is no old one: what it said is the clue.
    const first = said.trim().split('\n')[0]?.trim().slice(0, 300) || 'nothing';
    throw new LocalStartError(
      `\`java -version\` did not say which Java it is (exit code ${result.status ?? result.signal}; it said: ${first}): DynamoDB Local needs Java 17 or newer; check that \`java\` runs, or ${JAVA_FIX}`,
    );
  }
  const major = Number(match[1] === '1' ? match[2] : match[1]);
  if (!(major >= 17)) throw new LocalStartError(`Java ${major} is too old: DynamoDB Local needs 17 or newer; ${JAVA_FIX}`);
}
