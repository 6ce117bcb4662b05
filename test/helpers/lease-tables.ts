import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { LocalClients } from '../../shared/local/clients.js';
import { createLeaseTable } from '../../shared/local/stack/lease-table.js';
import { DynamoDbLeaseTable } from '../../shared/processor/lease-table.js';

/** A fresh, empty lease table with a unique name on the run's DynamoDB Local, written through the clients' document client. */
export async function freshLeaseTable(clients: LocalClients): Promise<DynamoDbLeaseTable> {
  const tableName = `leases-${randomUUID().slice(0, 8)}`;
  await createLeaseTable(clients.dynamodb, tableName);
  return new DynamoDbLeaseTable(clients.document, tableName);
}

/**
 * A fresh lease table with one lease, `shard-1`, that worker A holds: `table` reads and writes it
 * through `document` (a client that loses answers, say), `plain` through the clients' own.
 */
export async function tableWithLease(clients: LocalClients, document: DynamoDBDocumentClient = clients.document) {
  const plain = await freshLeaseTable(clients);
  await plain.create('shard-1', []);
  const held = (await plain.take((await plain.list())[0]!, 'A'))!;
  return { table: new DynamoDbLeaseTable(document, plain.tableName), plain, held };
}
