import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { vi } from 'vitest';
import type { Outbox, WriteInput } from '../../shared/write/index.js';

/**
 * What `outbox.write(input)` rejects with (`undefined` when it resolves), and how many requests it
 * sent through `client`, the DocumentClient the outbox was made with: a refusal before sending sent none.
 */
export async function writeRefusal(
  outbox: Outbox,
  client: DynamoDBDocumentClient,
  input: WriteInput,
): Promise<{ error: unknown; sent: number }> {
  const send = vi.spyOn(client, 'send');
  try {
    const error = await outbox.write(input).then(
      () => undefined,
      (e: unknown) => e,
    );
    return { error, sent: send.mock.calls.length };
  } finally {
    send.mockRestore();
  }
}
