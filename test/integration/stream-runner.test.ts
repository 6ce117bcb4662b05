import { ExpiredIteratorException, GetRecordsCommand } from '@aws-sdk/client-dynamodb-streams';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { startFauxqs } from 'fauxqs';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { type RelayEventSourceSettings, relayEventSourceSettings } from '../../shared/event-source.js';
import { type LocalClients, localClients } from '../../shared/local/clients.js';
import { laneIndex } from '../../shared/local/event-source/batch-lanes.js';
import { compileFilters } from '../../shared/local/event-source/filter-pattern.js';
import { type OnFailureDestination, s3OnFailureDestination } from '../../shared/local/event-source/on-failure.js';
import { type StreamHandler, StreamRunner, type StreamsClient } from '../../shared/local/event-source/stream-runner.js';
import type { StreamBatchFailureRecord } from '../../shared/on-failure/batch-record.js';
import { toLambdaRecord } from '../../shared/on-failure/lambda-record.js';
import { onFailureRecordProblem } from '../../shared/redrive/on-failure-record.js';
import { slotKey } from '../../shared/slot.js';
import { freshTable, testClients } from '../helpers/local.js';
import { eventWriter } from '../helpers/slot-writer.js';
import { readStream } from '../helpers/stream.js';

const config = defineConfig({
  source: 'urn:test:runner',
  topics: [{ name: 'orders' }],
  routes: { order: 'orders', fast: 'orders' },
  lowLatencyAggregateTypes: ['fast'],
});

let clients: LocalClients | undefined;
let runner: StreamRunner | undefined;

afterEach(async () => {
  await runner?.stop();
  clients?.destroy();
});

async function setUp(): Promise<{ clients: LocalClients; tableName: string; streamArn: string }> {
  clients = testClients();
  const table = await freshTable(clients, 'runner');
  return { clients, ...table };
}

function start(
  streams: StreamsClient,
  streamArn: string,
  handler: StreamHandler,
  settings: RelayEventSourceSettings,
  onFailure?: OnFailureDestination,
) {
  runner = new StreamRunner({
    streams,
    streamArn,
    settings,
    handler,
    ...(onFailure === undefined ? {} : { onFailure }),
    pollIntervalMs: 50,
  });
  runner.start();
  return runner;
}

/** Every record of the stream, read directly, in the Lambda shape. */
async function wholeStream(c: LocalClients, streamArn: string): Promise<DynamoDBRecord[]> {
  return (await readStream(c.streams, streamArn)).map((record) => toLambdaRecord(record, streamArn));
}

const recorder = () => {
  const invocations: DynamoDBRecord[][] = [];
  const handler: StreamHandler = async (event: DynamoDBStreamEvent) => {
    invocations.push(event.Records);
    return { batchItemFailures: [] };
  };
  return { invocations, handler, records: () => invocations.flat() };
};

const sequences = (records: readonly DynamoDBRecord[]) => records.map((r) => r.dynamodb?.SequenceNumber);

describe('local event-source-mapping runner', () => {
  it('hands over exactly the records the relay filter patterns pass, in the exact Lambda record shape', async () => {
    const { clients: c, tableName, streamArn } = await setUp();
    const write = eventWriter(c.document, tableName, config);
    const settings = relayEventSourceSettings(config);
    await c.document.send(new PutCommand({ TableName: tableName, Item: { pk: 'ORDER#1', sk: 'ORDER', total: 5 } }));
    await write({ type: 'order', id: 'a' }, [{ type: 'order.placed', data: {} }]);
    await write({ type: 'order', id: 'a' }, [{ type: 'order.paid', data: {} }]);
    await write({ type: 'fast', id: 'f' }, [{ type: 'fast.moved', data: {} }]);
    await c.document.send(new PutCommand({ TableName: tableName, Item: { pk: 'OUTBOX#order#x', sk: 'OTHER', kind: 'business' } }));
    await c.document.send(new DeleteCommand({ TableName: tableName, Key: slotKey({ type: 'order', id: 'a' }) }));
    await c.document.send(new DeleteCommand({ TableName: tableName, Key: { pk: 'ORDER#1', sk: 'ORDER' } }));

    const seen = recorder();
    const r = start(c.streams, streamArn, seen.handler, settings);
    await r.idle();

    const stream = await wholeStream(c, streamArn);
    expect(stream).toHaveLength(7);
    const expected = stream.filter(compileFilters(settings.filterPatterns));
    expect(sequences(seen.records())).toEqual(sequences(expected));
    expect(seen.records().map((x) => [x.eventName, x.dynamodb?.NewImage?.aggregateType?.S])).toEqual([
      ['INSERT', 'order'],
      ['MODIFY', 'order'],
    ]);
    expect(r.stats.recordsFilteredOut).toBe(5);
    const [first] = seen.records();
    expect(Object.keys(first!).sort()).toEqual([
      'awsRegion',
      'dynamodb',
      'eventID',
      'eventName',
      'eventSource',
      'eventSourceARN',
      'eventVersion',
    ]);
    expect(Object.keys(first!.dynamodb!).sort()).toEqual([
      'ApproximateCreationDateTime',
      'Keys',
      'NewImage',
      'SequenceNumber',
      'SizeBytes',
      'StreamViewType',
    ]);
    expect(first).toMatchObject({ eventSource: 'aws:dynamodb', eventSourceARN: streamArn, dynamodb: { StreamViewType: 'NEW_IMAGE' } });
    expect(Number.isInteger(first!.dynamodb!.ApproximateCreationDateTime)).toBe(true);
  });

  it('retries from the lowest reported failure only, and respects the batch size', async () => {
    const { clients: c, tableName, streamArn } = await setUp();
    const write = eventWriter(c.document, tableName, config);
    for (let i = 0; i < 7; i++) await write({ type: 'order', id: `o${i}` }, [{ type: 'order.placed', data: { i } }]);
    const invocations: DynamoDBRecord[][] = [];
    let failedOnce = false;
    const handler: StreamHandler = async ({ Records }) => {
      invocations.push(Records);
      const second = Records.find((x) => x.dynamodb?.NewImage?.aggregateId?.S === 'o1');
      const fourth = Records.find((x) => x.dynamodb?.NewImage?.aggregateId?.S === 'o3');
      if (second !== undefined && fourth !== undefined && !failedOnce) {
        failedOnce = true;
        return {
          batchItemFailures: [{ itemIdentifier: fourth.dynamodb!.SequenceNumber! }, { itemIdentifier: second.dynamodb!.SequenceNumber! }],
        };
      }
      return { batchItemFailures: [] };
    };
    start(c.streams, streamArn, handler, { ...relayEventSourceSettings(config), batchSize: 5 });
    await runner!.idle();
    const ids = invocations.map((batch) => batch.map((x) => x.dynamodb?.NewImage?.aggregateId?.S));
    expect(ids).toEqual([
      ['o0', 'o1', 'o2', 'o3', 'o4'],
      ['o1', 'o2', 'o3', 'o4'],
      ['o5', 'o6'],
    ]);
  });

  it('fails a poison record over to the on-failure destination as DDBStreamBatchInfo after bisecting and retrying', async () => {
    const { clients: c, tableName, streamArn } = await setUp();
    const write = eventWriter(c.document, tableName, config);
    for (let i = 0; i < 8; i++) await write({ type: 'order', id: `o${i}` }, [{ type: 'order.placed', data: { i } }]);
    const invocations: DynamoDBRecord[][] = [];
    const handler: StreamHandler = async ({ Records }) => {
      invocations.push(Records);
      if (Records.some((x) => x.dynamodb?.NewImage?.aggregateId?.S === 'o5')) throw new Error('poison');
      return { batchItemFailures: [] };
    };
    const failures: StreamBatchFailureRecord[] = [];
    start(c.streams, streamArn, handler, { ...relayEventSourceSettings(config), maxRetryAttempts: 2, bisectBatchOnError: true }, (f) => {
      failures.push(f);
    });
    await expect.poll(() => failures.length, { timeout: 20_000 }).toBe(1);
    await runner!.idle();

    const poison = (await wholeStream(c, streamArn)).find((x) => x.dynamodb?.NewImage?.aggregateId?.S === 'o5')!;
    expect(failures[0]).toMatchObject({
      requestContext: { condition: 'RetryAttemptsExhausted', approximateInvokeCount: 3 },
      responseContext: { statusCode: 200, functionError: 'Unhandled' },
      version: '1.0',
      DDBStreamBatchInfo: {
        startSequenceNumber: poison.dynamodb!.SequenceNumber,
        endSequenceNumber: poison.dynamodb!.SequenceNumber,
        batchSize: 1,
        streamArn,
      },
    });
    expect(failures[0]!.DDBStreamBatchInfo.approximateArrivalOfFirstRecord).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const succeeded = new Set(
      invocations
        .filter((batch) => !batch.some((x) => x.dynamodb?.NewImage?.aggregateId?.S === 'o5'))
        .flat()
        .map((x) => x.dynamodb?.NewImage?.aggregateId?.S),
    );
    expect([...succeeded].sort()).toEqual(['o0', 'o1', 'o2', 'o3', 'o4', 'o6', 'o7']);
    // 8 fails → halves of 4 (the first succeeds) → the failing half in 2 → in 1 → the poison alone, retried twice → the rest.
    expect(invocations.map((b) => b.length)).toEqual([8, 4, 4, 2, 1, 1, 1, 1, 2]);
  });

  it('fails a batch it gives up on over to an S3 destination with its records as payload, readable by the redrive tool', async () => {
    const server = await startFauxqs({ port: 0, logger: false });
    const s3 = localClients({ dynamodb: inject('dynamodbEndpoint'), aws: server.address });
    try {
      server.createBucket('relay-failures');
      const { clients: c, tableName, streamArn } = await setUp();
      const write = eventWriter(c.document, tableName, config);
      await write({ type: 'order', id: 'poison' }, [{ type: 'order.placed', data: {} }]);
      const handler: StreamHandler = async () => {
        throw new Error('always failing');
      };
      start(
        c.streams,
        streamArn,
        handler,
        { ...relayEventSourceSettings(config), maxRetryAttempts: 0 },
        s3OnFailureDestination(s3.s3, 'relay-failures', 'relay/'),
      );
      await expect.poll(() => runner!.stats.batchesSentToOnFailure, { timeout: 20_000 }).toBe(1);
      const { Contents = [] } = await s3.s3.send(new ListObjectsV2Command({ Bucket: 'relay-failures', Prefix: 'relay/' }));
      expect(Contents).toHaveLength(1);
      expect(Contents[0]!.Key).toMatch(
        /^relay\/aws\/lambda\/[^/]+\/[^/]+\/\d{4}\/\d\d\/\d\d\/\d{4}-\d\d-\d\dT\d\d\.\d\d\.\d\d-[0-9a-f-]{36}$/,
      );
      const object = await s3.s3.send(new GetObjectCommand({ Bucket: 'relay-failures', Key: Contents[0]!.Key }));
      const stored: unknown = JSON.parse(await object.Body!.transformToString());
      expect(onFailureRecordProblem(stored)).toBeUndefined();
      expect(stored).toMatchObject({ requestContext: { condition: 'RetryAttemptsExhausted', approximateInvokeCount: 1 } });
      // As Lambda's S3 destination writes it: the invocation event as a JSON string.
      const { payload } = stored as { payload: unknown };
      expect(typeof payload).toBe('string');
      expect(JSON.parse(payload as string)).toMatchObject({
        Records: [{ eventName: 'INSERT', dynamodb: { NewImage: { aggregateId: { S: 'poison' } } } }],
      });
    } finally {
      s3.destroy();
      await server.stop();
    }
  });

  it('reads one batch while the handler waits for records, and full pages ahead of it while it works', async () => {
    const { clients: c, tableName, streamArn } = await setUp();
    const write = eventWriter(c.document, tableName, config);
    for (let i = 0; i < 12; i++) await write({ type: 'order', id: `o${i}` }, [{ type: 'order.placed', data: { i } }]);
    const limits: (number | undefined)[] = [];
    const streams: StreamsClient = {
      send: (async (command: GetRecordsCommand) => {
        if (command instanceof GetRecordsCommand) limits.push(command.input.Limit);
        return c.streams.send(command);
      }) as StreamsClient['send'],
    };
    let release: () => void = () => {};
    const firstBatchHeld = new Promise<void>((resolve) => {
      release = resolve;
    });
    const invocations: DynamoDBRecord[][] = [];
    const handler: StreamHandler = async ({ Records }) => {
      invocations.push(Records);
      if (invocations.length === 1) await firstBatchHeld;
      return { batchItemFailures: [] };
    };
    start(streams, streamArn, handler, { ...relayEventSourceSettings(config), batchSize: 5 });
    // While the first batch is held, the reader fetches the rest of the stream in one full page.
    await expect.poll(() => limits.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
    expect(limits.slice(0, 2)).toEqual([5, 1000]);
    release();
    await expect.poll(() => invocations.flat().length, { timeout: 20_000 }).toBe(12);
    expect(invocations.map((batch) => batch.length)).toEqual([5, 5, 2]);
    expect(invocations.flat().map((r) => r.dynamodb?.NewImage?.aggregateId?.S)).toEqual(Array.from({ length: 12 }, (_, i) => `o${i}`));
  });

  it('cuts batches at Lambda’s 6 MB payload limit, where the records’ exact JSON sizes put the cut', async () => {
    const { clients: c, tableName, streamArn } = await setUp();
    // Quotes must be escaped in JSON, so the cheap size bounds cannot prove these batches fit.
    const payload = 'x"'.repeat(170_000);
    for (let i = 0; i < 20; i++) {
      await c.document.send(
        new PutCommand({ TableName: tableName, Item: { pk: `BIG#${String(i).padStart(2, '0')}`, sk: 'ITEM', payload } }),
      );
    }
    const seen = recorder();
    start(c.streams, streamArn, seen.handler, { ...relayEventSourceSettings(config), filterPatterns: [] });
    await expect.poll(() => seen.records().length, { timeout: 30_000 }).toBe(20);
    const limit = 6 * 1024 * 1024;
    const payloadSize = (records: readonly DynamoDBRecord[]) => Buffer.byteLength(JSON.stringify({ Records: records }));
    expect(seen.invocations.length).toBeGreaterThan(1);
    seen.invocations.forEach((batch, i) => {
      expect(payloadSize(batch)).toBeLessThanOrEqual(limit);
      const next = seen.invocations[i + 1]?.[0];
      if (next !== undefined) expect(payloadSize([...batch, next])).toBeGreaterThan(limit);
    });
    expect(seen.records().map((r) => r.dynamodb?.Keys?.pk?.S)).toEqual(
      Array.from({ length: 20 }, (_, i) => `BIG#${String(i).padStart(2, '0')}`),
    );
  });

  it('with a parallelization factor, hands several batches of a shard over at once, each item in one lane and in order', async () => {
    const { clients: c, tableName, streamArn } = await setUp();
    const write = eventWriter(c.document, tableName, config);
    const aggregates = Array.from({ length: 12 }, (_, i) => `o${i}`);
    for (let round = 1; round <= 4; round++) {
      for (const id of aggregates) await write({ type: 'order', id }, [{ type: 'order.placed', data: { round } }]);
    }
    const itemOf = (r: DynamoDBRecord) => r.dynamodb?.NewImage?.aggregateId?.S ?? '';
    const inFlight = new Set<string>();
    let overlapping = 0;
    let mostInFlight = 0;
    let batchesInFlight = 0;
    const seen = recorder();
    const handler: StreamHandler = async (event, context) => {
      for (const record of event.Records) {
        if (inFlight.has(itemOf(record))) overlapping++;
      }
      const items = new Set(event.Records.map(itemOf));
      for (const item of items) inFlight.add(item);
      mostInFlight = Math.max(mostInFlight, ++batchesInFlight);
      // The first batches wait until three are in flight together, then every batch goes through.
      await vi.waitFor(() => expect(mostInFlight).toBe(3), { timeout: 10_000, interval: 5 });
      batchesInFlight--;
      for (const item of items) inFlight.delete(item);
      return seen.handler(event, context);
    };
    start(c.streams, streamArn, handler, { ...relayEventSourceSettings(config), batchSize: 4, parallelizationFactor: 3 });
    await expect.poll(() => seen.records().length, { timeout: 20_000 }).toBe(48);
    await runner!.idle();
    expect(mostInFlight).toBe(3);
    expect(overlapping).toBe(0);
    for (const id of aggregates) {
      const mine = seen.records().filter((r) => itemOf(r) === id);
      expect(mine.map((r) => r.dynamodb?.NewImage?.seq?.N)).toEqual(['1', '2', '3', '4']);
    }
    // Every batch holds the records of one lane only.
    for (const batch of seen.invocations) {
      expect(new Set(batch.map((r) => laneIndex(r, 3))).size).toBe(1);
    }
  });

  it('with a parallelization factor, retries a failing batch while the other lanes go on', async () => {
    const { clients: c, tableName, streamArn } = await setUp();
    const write = eventWriter(c.document, tableName, config);
    for (let i = 0; i < 16; i++) await write({ type: 'order', id: `o${i}` }, [{ type: 'order.placed', data: { i } }]);
    const all = (await wholeStream(c, streamArn)).filter(compileFilters(relayEventSourceSettings(config).filterPatterns));
    const poison = all.find((r) => r.dynamodb?.NewImage?.aggregateId?.S === 'o0')!;
    const poisonLane = laneIndex(poison, 2);
    const others = sequences(all.filter((r) => laneIndex(r, 2) !== poisonLane));
    expect(others.length).toBeGreaterThan(0);
    let failures = 0;
    const seen = recorder();
    const handler: StreamHandler = async (event, context) => {
      if (event.Records.some((r) => r.dynamodb?.SequenceNumber === poison.dynamodb?.SequenceNumber)) {
        // The first attempt fails; the retry goes through only once the other lane has delivered
        // everything, which it could not if a failure held the whole shard back.
        if (failures++ === 0) throw new Error('downstream unavailable');
        await vi.waitFor(() => expect(sequences(seen.records())).toEqual(expect.arrayContaining(others)), { timeout: 10_000, interval: 5 });
      }
      return seen.handler(event, context);
    };
    start(c.streams, streamArn, handler, { ...relayEventSourceSettings(config), batchSize: 2, parallelizationFactor: 2 });
    await expect.poll(() => seen.records().length, { timeout: 20_000 }).toBe(all.length);
    expect(failures).toBe(2);
    const delivered = sequences(seen.records());
    expect(new Set(delivered).size).toBe(all.length);
    const poisonAt = delivered.indexOf(poison.dynamodb?.SequenceNumber);
    expect(Math.max(...others.map((sequence) => delivered.indexOf(sequence)))).toBeLessThan(poisonAt);
    // Within the poison's lane, stream order holds across the retry.
    const lane = seen.records().filter((r) => laneIndex(r, 2) === poisonLane);
    expect(sequences(lane)).toEqual(sequences(all.filter((r) => laneIndex(r, 2) === poisonLane)));
  });

  it('renews an expired shard iterator and goes on without losing or repeating records', async () => {
    const { clients: c, tableName, streamArn } = await setUp();
    const write = eventWriter(c.document, tableName, config);
    let getRecordsCalls = 0;
    let expired = 0;
    const streams: StreamsClient = {
      send: (async (command: GetRecordsCommand) => {
        if (command instanceof GetRecordsCommand && ++getRecordsCalls === 3) {
          expired++;
          throw new ExpiredIteratorException({ message: 'Iterator expired', $metadata: {} });
        }
        return c.streams.send(command);
      }) as StreamsClient['send'],
    };
    const seen = recorder();
    start(streams, streamArn, seen.handler, relayEventSourceSettings(config));
    for (let i = 0; i < 3; i++) await write({ type: 'order', id: `o${i}` }, [{ type: 'order.placed', data: { i } }]);
    await expect.poll(() => seen.records().length, { timeout: 20_000 }).toBe(3);
    for (let i = 3; i < 6; i++) await write({ type: 'order', id: `o${i}` }, [{ type: 'order.placed', data: { i } }]);
    await expect.poll(() => seen.records().length, { timeout: 20_000 }).toBe(6);
    await runner!.idle();
    expect(expired).toBe(1);
    expect(seen.records().map((x) => x.dynamodb?.NewImage?.aggregateId?.S)).toEqual(['o0', 'o1', 'o2', 'o3', 'o4', 'o5']);
  });
});
