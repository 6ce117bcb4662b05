import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBStreamsClient, GetRecordsCommand, type GetRecordsCommandOutput } from '@aws-sdk/client-dynamodb-streams';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamsClient } from '../../shared/aws/streams-client.js';

/**
 * `GetRecords` answers as DynamoDB Streams may send them, with what DynamoDB Local does not
 * produce: a TTL removal's `userIdentity`, members in another order than the schema's, null
 * and unknown members, a timestamp as a numeric string, and a record that names its type.
 */
const PAGES: Record<string, unknown> = {
  ttl: {
    NextShardIterator: 'next',
    Records: [
      {
        awsRegion: 'eu-west-1',
        dynamodb: {
          StreamViewType: 'NEW_AND_OLD_IMAGES',
          SizeBytes: 84,
          SequenceNumber: '4421584500000000017450439093',
          OldImage: { pk: { S: 'OUTBOX#order#1' }, sk: { S: 'SLOT' }, blob: { B: 'AAEC+v8=' }, set: { BS: ['AQ==', 'AgM='] } },
          Keys: { pk: { S: 'OUTBOX#order#1' }, sk: { S: 'SLOT' } },
          ApproximateCreationDateTime: 1479499740.123,
        },
        eventID: 'c81e728d9d4c2f636f067f89cc14862c',
        eventName: 'REMOVE',
        eventSource: 'aws:dynamodb',
        eventVersion: '1.1',
        userIdentity: { Type: 'Service', PrincipalId: 'dynamodb.amazonaws.com' },
      },
      {
        eventID: 'e2',
        eventName: 'INSERT',
        awsRegion: null,
        somethingNew: { nested: true },
        dynamodb: {
          ApproximateCreationDateTime: '1479499741',
          Keys: { pk: { S: 'ITEM#2' }, sk: { S: 'A' } },
          NewImage: {
            pk: { S: 'ITEM#2' },
            sk: { S: 'A' },
            list: { L: [{ B: 'CQ==' }, { M: { deep: { BS: ['Bwc='] }, n: { N: '-1.50' } } }, { NULL: true }] },
            map: { M: { yes: { BOOL: true }, ss: { SS: ['a'] }, ns: { NS: ['1', '2'] } } },
          },
          OldImage: null,
          SequenceNumber: '4421584500000000017450439094',
          SizeBytes: 40,
          StreamViewType: 'NEW_IMAGE',
          extra: 'ignored',
        },
      },
    ],
  },
  typed: {
    Records: [{ __type: 'com.amazonaws.dynamodbstreams#Record', eventID: 'e3', eventName: 'MODIFY', unknown: 'kept when typed' }],
  },
  empty: { Records: [], NextShardIterator: 'next' },
};

describe('streamsClient decoding of GetRecords pages', () => {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      const { ShardIterator } = JSON.parse(body) as { ShardIterator: string };
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(JSON.stringify(PAGES[ShardIterator]));
    });
  });
  let config: { region: string; endpoint: string; credentials: { accessKeyId: string; secretAccessKey: string } };

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    config = { region: 'eu-west-1', endpoint: `http://127.0.0.1:${port}`, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } };
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const read = async (client: DynamoDBStreamsClient, page: string): Promise<Omit<GetRecordsCommandOutput, '$metadata'>> => {
    try {
      const { $metadata, ...output } = await client.send(new GetRecordsCommand({ ShardIterator: page }));
      return output;
    } finally {
      client.destroy();
    }
  };

  it.each(Object.keys(PAGES))('returns what the plain client returns, member for member and in the same order (%s)', async (page) => {
    const expected = await read(new DynamoDBStreamsClient(config), page);
    const actual = await read(streamsClient(config), page);
    expect(actual).toEqual(expected);
    expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
  });

  it('decodes timestamps to dates, binaries to bytes, and keeps the identity of a TTL removal', async () => {
    const { Records = [] } = await read(streamsClient(config), 'ttl');
    const [removal, insert] = Records;
    expect(removal?.userIdentity).toEqual({ PrincipalId: 'dynamodb.amazonaws.com', Type: 'Service' });
    expect(removal?.dynamodb?.ApproximateCreationDateTime).toEqual(new Date(1479499740123));
    expect(removal?.dynamodb?.OldImage?.blob?.B).toEqual(new Uint8Array([0, 1, 2, 250, 255]));
    expect(removal?.dynamodb?.OldImage?.set?.BS).toEqual([new Uint8Array([1]), new Uint8Array([2, 3])]);
    expect(Object.keys(removal?.dynamodb ?? {})).toEqual([
      'ApproximateCreationDateTime',
      'Keys',
      'OldImage',
      'SequenceNumber',
      'SizeBytes',
      'StreamViewType',
    ]);
    expect(insert?.dynamodb?.ApproximateCreationDateTime).toEqual(new Date(1479499741000));
    expect(insert?.dynamodb?.NewImage?.list?.L?.[1]?.M?.deep?.BS?.[0]).toEqual(new Uint8Array([7, 7]));
    expect(insert).not.toHaveProperty('awsRegion');
    expect(insert).not.toHaveProperty('somethingNew');
    expect(insert?.dynamodb).not.toHaveProperty('OldImage');
  });
});
