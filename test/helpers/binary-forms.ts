import { randomUUID } from 'node:crypto';
import { CreateTableCommand, type ScalarAttributeType } from '@aws-sdk/client-dynamodb';
import type { LocalClients } from '../../shared/local/clients.js';

/** The bytes the binary forms below hold. */
export const BINARY_BYTES = [0, 1, 2, 250];

/**
 * Binary the DocumentClient does not send as its bytes (an `ArrayBuffer`, a `DataView` or a `Blob`
 * go as empty binary, a typed array other than `Uint8Array` fails in the client), each holding
 * {@link BINARY_BYTES}: its name, how to make it, and how a refusal shows it.
 */
export const BINARY_FORMS = [
  ['an ArrayBuffer', () => Uint8Array.from(BINARY_BYTES).buffer, 'an ArrayBuffer of 4 bytes'],
  ['a DataView', () => new DataView(Uint8Array.from([9, ...BINARY_BYTES]).buffer, 1, 4), 'a DataView of 4 bytes'],
  ['a Blob', () => new Blob([Uint8Array.from(BINARY_BYTES)]), 'a Blob of 4 bytes'],
  ['an Int16Array', () => new Int16Array(Uint8Array.from(BINARY_BYTES).buffer), 'an Int16Array of 4 bytes'],
] as const;

/**
 * A table per key type on DynamoDB Local, keyed by `scope` (a string) and `id` of that type, named
 * `${prefix}-${type}-…`: for tests of writes whose keys are given in other forms.
 */
export async function keyTypeTables(clients: LocalClients, prefix: string): Promise<Record<'N' | 'S' | 'B', string>> {
  const tables: Partial<Record<ScalarAttributeType, string>> = {};
  for (const type of ['N', 'S', 'B'] as const) {
    const name = `${prefix}-${type}-${randomUUID().slice(0, 8)}`;
    await clients.dynamodb.send(
      new CreateTableCommand({
        TableName: name,
        AttributeDefinitions: [
          { AttributeName: 'scope', AttributeType: 'S' },
          { AttributeName: 'id', AttributeType: type },
        ],
        KeySchema: [
          { AttributeName: 'scope', KeyType: 'HASH' },
          { AttributeName: 'id', KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    tables[type] = name;
  }
  return tables as Record<'N' | 'S' | 'B', string>;
}
