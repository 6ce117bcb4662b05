import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { FauxqsServer } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_CONTENT_TYPE, batchBody } from '../../shared/envelope.js';
import { type LocalClients, localClients } from '../../shared/local/clients.js';
import { receiveMessages } from '../../shared/local/stack/receive.js';
import { anEnvelope } from '../helpers/envelopes.js';
import { startEmulator } from '../helpers/fauxqs.js';

let server: FauxqsServer;
let clients: LocalClients;

beforeAll(async () => {
  server = await startEmulator();
  clients = localClients({ dynamodb: 'http://127.0.0.1:1', aws: server.address });
});

afterAll(async () => {
  clients?.destroy();
  await server?.stop();
});

describe('receiving batch messages from a local queue', () => {
  it('gives every event of a batch message in order, and the one event of a plain message', async () => {
    const { queueUrl } = server.createQueue('receive-batch');
    const events = [1, 2, 3].map((sequence) => anEnvelope({ sequence }));
    await clients.sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: batchBody(events.map((e) => e.body)),
        MessageAttributes: { 'content-type': { DataType: 'String', StringValue: BATCH_CONTENT_TYPE } },
      }),
    );
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: events[0]!.body }));

    const [batch, single] = await receiveMessages(clients.sqs, queueUrl, { count: 2, timeoutMs: 10_000 });
    expect(batch?.envelopes?.map((e) => e.id)).toEqual(events.map((e) => e.id));
    expect(batch?.envelope?.id).toBe(events[0]!.id);
    expect(batch?.attributes['content-type']).toBe(BATCH_CONTENT_TYPE);
    expect(single?.envelopes?.map((e) => e.id)).toEqual([events[0]!.id]);
  });
});
