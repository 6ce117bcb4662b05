import { DeleteItemCommand, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { streamsClient } from '../../shared/aws/streams-client.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../shared/local/clients.js';
import { freshTable, testClients } from '../helpers/local.js';

/** Every kind of attribute value, nested, as outbox slots and business items may hold them. */
const EVERY_KIND = {
  pk: { S: 'ITEM#kinds' },
  sk: { S: 'A' },
  text: { S: 'héllo "quoted" \\ \u2028' },
  number: { N: '-12.500' },
  big: { N: '123456789012345678901234567890' },
  bytes: { B: new Uint8Array([0, 1, 2, 250, 255]) },
  byteSet: { BS: [new Uint8Array([1]), new Uint8Array([2, 3])] },
  textSet: { SS: ['a', 'b'] },
  numberSet: { NS: ['1', '2.5'] },
  yes: { BOOL: true },
  no: { BOOL: false },
  nothing: { NULL: true },
  list: { L: [{ S: 'x' }, { N: '1' }, { B: new Uint8Array([9]) }, { L: [] }, { M: {} }] },
  map: { M: { inner: { M: { deep: { BS: [new Uint8Array([7, 7])] }, flag: { BOOL: false } } }, empty: { S: '' } } },
};

describe('streamsClient', () => {
  const clients = testClients();
  const plain = new DynamoDBStreamsClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: inject('dynamodbEndpoint') });
  const fast = streamsClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: inject('dynamodbEndpoint') });
  let streamArn: string;

  beforeAll(async () => {
    const table = await freshTable(clients, 'codec');
    streamArn = table.streamArn;
    await clients.dynamodb.send(new PutItemCommand({ TableName: table.tableName, Item: EVERY_KIND }));
    await clients.dynamodb.send(
      new UpdateItemCommand({
        TableName: table.tableName,
        Key: { pk: EVERY_KIND.pk, sk: EVERY_KIND.sk },
        UpdateExpression: 'SET #text = :t REMOVE bytes',
        ExpressionAttributeNames: { '#text': 'text' },
        ExpressionAttributeValues: { ':t': { S: 'changed' } },
      }),
    );
    await clients.dynamodb.send(new DeleteItemCommand({ TableName: table.tableName, Key: { pk: EVERY_KIND.pk, sk: EVERY_KIND.sk } }));
  });

  afterAll(() => {
    plain.destroy();
    fast.destroy();
    clients.destroy();
  });

  const readAll = async (client: DynamoDBStreamsClient): Promise<GetRecordsCommandOutput['Records']> => {
    const { StreamDescription } = await client.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    const shardId = StreamDescription?.Shards?.[0]?.ShardId;
    const { ShardIterator } = await client.send(
      new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' }),
    );
    const { Records } = await client.send(new GetRecordsCommand({ ShardIterator }));
    return Records;
  };

  it('decodes stream records exactly as the plain client does, every kind of attribute value included', async () => {
    const expected = await readAll(plain);
    const actual = await readAll(fast);
    expect(expected?.map((r) => r.eventName)).toEqual(['INSERT', 'MODIFY', 'REMOVE']);
    expect(actual).toEqual(expected);
    // Member for member, in the same order.
    expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
    const inserted = actual?.[0]?.dynamodb?.NewImage;
    expect(inserted?.bytes?.B).toBeInstanceOf(Uint8Array);
    expect(inserted?.map?.M?.inner?.M?.deep?.BS?.[0]).toEqual(new Uint8Array([7, 7]));
    expect(actual?.[0]?.dynamodb?.ApproximateCreationDateTime).toBeInstanceOf(Date);
  });

  it('raises the same typed errors as the plain client', async () => {
    const bad = new GetShardIteratorCommand({
      StreamArn: streamArn,
      ShardId: 'shardId-00000000000000000000-nosuch',
      ShardIteratorType: 'TRIM_HORIZON',
    });
    const expected = await plain.send(bad).catch((error: Error) => error);
    const actual = await fast.send(bad).catch((error: Error) => error);
    expect(expected).toBeInstanceOf(Error);
    expect((actual as Error).name).toBe((expected as Error).name);
    expect(actual).toBeInstanceOf((expected as Error).constructor);
  });
});
