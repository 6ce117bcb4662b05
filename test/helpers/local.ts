import { randomUUID } from 'node:crypto';
import type { FauxqsServer } from 'fauxqs';
import { afterAll, inject } from 'vitest';
import { type LocalClients, localClients } from '../../shared/local/clients.js';
import { createOutboxTable } from '../../shared/local/stack/table.js';
import { startEmulator } from './fauxqs.js';

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

/**
 * An emulator for the test file, with clients for it and the run's DynamoDB Local: started as the
 * file loads (`const { server, clients } = await emulatorForFile();`), stopped after its last test.
 */
export async function emulatorForFile(): Promise<{ server: FauxqsServer; clients: LocalClients }> {
  const server = await startEmulator();
  const clients = testClients(server.address);
  afterAll(async () => {
    clients.destroy();
    await server.stop();
  });
  return { server, clients };
}
