import { execFileSync } from 'node:child_process';

/** The ids of the processes whose command line names `text` (`pgrep -f`); none when no process does. */
export function processesNaming(text: string): string[] {
  try {
    return execFileSync('pgrep', ['-f', '--', text], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/** The Java processes of a DynamoDB Local on `port` (its command line has `-port N -sharedDb`). */
export const dynamoDbLocalJavaOn = (port: number): string[] => processesNaming(`-port ${port} -sharedDb`);
