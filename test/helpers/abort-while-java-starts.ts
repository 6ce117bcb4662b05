import type { AbortSignalLike } from '../../shared/abort.js';
import { startDynamoDbLocal } from '../../shared/local/stack/dynamodb-local.js';
import { freePort } from '../../shared/local/stack/ports.js';
import { dynamoDbLocalJavaOn as javaOn } from './processes.js';
import { waitFor } from './wait.js';

/**
 * Starts DynamoDB Local on a free port with `controller`'s signal and aborts it (with `reason`,
 * when given) once its Java process is there, before it answers: the port, and what the start
 * rejected with (an `Error` saying so if it resolved instead).
 */
export async function abortWhileJavaStarts(
  controller: { readonly signal: AbortSignalLike; abort(reason?: unknown): void },
  ...reason: [] | [unknown]
): Promise<{ port: number; error: unknown }> {
  const port = await freePort();
  const starting = startDynamoDbLocal({ port, signal: controller.signal }).then(
    async (ddb) => {
      await ddb.stop();
      return new Error('DynamoDB Local answered before the abort');
    },
    (e: unknown) => e,
  );
  await waitFor(() => javaOn(port).length > 0, { timeoutMs: 30_000, what: `a Java process for port ${port}` });
  controller.abort(...reason);
  return { port, error: await starting };
}
