import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { InitializeMiddleware, MetadataBearer } from '@smithy/types';
import { describe, expect, it } from 'vitest';
import { WriteRejectedError } from '../../shared/errors.js';
import { Outbox } from '../../shared/write/index.js';
import { capturingClient } from '../helpers/capturing-client.js';
import { orderEvent, testConfig } from '../helpers/factories.js';

describe('an Outbox given a DynamoDBClient that a DocumentClient of the caller wraps', () => {
  it("leaves that DocumentClient's marshallOptions in force, and writes with them itself", async () => {
    const { client, document, bodies } = capturingClient({ marshallOptions: { removeUndefinedValues: true } });
    const outbox = new Outbox({ config: testConfig(), tableName: 'shop', client });

    // The SDK keeps a DocumentClient's options on the client it wraps: building the Outbox must not reset them.
    await document.send(new PutCommand({ TableName: 'shop', Item: { pk: 'NOTE#1', sk: 'NOTE', note: { gone: undefined } } }));
    expect(bodies[0]?.Item).toEqual({ pk: { S: 'NOTE#1' }, sk: { S: 'NOTE' }, note: { M: {} } });

    await outbox.write({
      operations: [{ Put: { Item: { pk: 'ORDER#o-1', sk: 'ORDER', note: { gone: undefined } } } }],
      events: [orderEvent('o-1')],
    });
    const sent = bodies[1] as { TransactItems: { Put?: { Item: Record<string, unknown> } }[] };
    expect(sent.TransactItems[0]?.Put?.Item).toEqual({ pk: { S: 'ORDER#o-1' }, sk: { S: 'ORDER' }, note: { M: {} } });
  });
});

describe('an Outbox whose client cannot assemble the request', () => {
  it('reports the write as never sent, not as one whose outcome is unknown', async () => {
    const client = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:1',
      credentials: { accessKeyId: 'k', secretAccessKey: 's' },
    });
    // Middleware placed relative to one the stack lacks: the SDK throws while it assembles each request.
    const passOn: InitializeMiddleware<object, MetadataBearer> = (next) => (args) => next(args);
    client.middlewareStack.addRelativeTo(passOn, {
      relation: 'before',
      toMiddleware: 'absentMiddleware',
      name: 'mine',
    });
    const outbox = new Outbox({ config: testConfig(), tableName: 'shop', client });

    const error = await outbox.write({ events: [orderEvent('o-2')] }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );

    expect(error).toBeInstanceOf(WriteRejectedError);
    expect(error).toMatchObject({
      message: expect.stringMatching(
        /^The write was never sent to DynamoDB \(Error: absentMiddleware is not found when adding mine middleware before absentMiddleware\); nothing was written/,
      ),
    });
  });
});

describe('an Outbox given a test double of a client: an object with send and no configuration', () => {
  it('writes through its send, instead of failing with a TypeError on the configuration it lacks', async () => {
    const sent: unknown[] = [];
    const double = {
      send: async (command: { input: unknown }) => {
        sent.push(command.input);
        return {};
      },
    };
    const outbox = new Outbox({ config: testConfig(), tableName: 'shop', client: double as never });

    const { events } = await outbox.write({
      operations: [{ Put: { Item: { pk: 'ORDER#o-1', sk: 'ORDER' } } }],
      events: [orderEvent('o-1')],
    });

    expect(events.map((event) => event.sequence)).toEqual([1]);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ TransactItems: [{ Put: { TableName: 'shop', Item: { pk: 'ORDER#o-1', sk: 'ORDER' } } }, {}] });
  });
});
