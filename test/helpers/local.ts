import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { type LocalClients, localClients } from '../../shared/local/clients.js';
import { createOutboxTable } from '../../shared/local/table.js';

/** Clients for the run's DynamoDB Local (and an emulator endpoint when given). */
export function testClients(aws?: string): LocalClients {
  return localClients({ dynamodb: inject('dynamodbEndpoint'), ...(aws === undefined ? {} : { aws }) });
}

/** A fresh outbox table with a unique name, created from the shared definition. */
export async function freshTable(clients: LocalClients, prefix = 'outbox'): Promise<{ tableName: string; streamArn: string }> {
  const tableName = `${prefix}-${randomUUID().slice(0, 8)}`;
  const { streamArn } = await createOutboxTable(clients.dynamodb, tableName);
  return { tableName, streamArn };
}
