import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { CreateTableCommand, DynamoDBClient, UpdateTimeToLiveCommand, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { createConsumer } from '../shared/consumer/index.js';
import { envelopeJson } from '../shared/envelope.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../shared/local/clients.js';
import { createOutboxTable } from '../shared/local/stack/table.js';

/*
 * The consumers the consumer benchmark and the crash comparison run side by side, each a Lambda
 * SQS handler doing the same business write (ADD 1 to the aggregate's counter item) for each event:
 *  - powertools: `makeIdempotent` with its DynamoDB persistence layer, keyed by the event id, around
 *    a record handler, the records handled in turn with a partial batch response;
 *  - transaction / claim: `createConsumer`, the inbox by transaction (the write goes into the
 *    inbox's TransactWriteItems) and by claim (the handler writes itself between claim and completion);
 *  - batch: `createConsumer`, the inbox by transaction with `commit: 'batch'` (the batch's writes
 *    and inbox records in one TransactWriteItems, split where an aggregate repeats);
 *  - bare: the same write per record, no dedup at all;
 *  - floor: the inbox's transaction without the helper: one TransactWriteItems of the write and a
 *    conditional Put of a dedup item, no read, no parsing beyond JSON.parse.
 */

export const BENCH_SOURCE = 'urn:bench:shop';
export const EVENT_TYPE = 'order.placed';
export type PathName = 'powertools' | 'transaction' | 'batch' | 'claim' | 'bare' | 'floor';

/** A DynamoDB client that counts every command sent through it (the DocumentClient shares its middleware stack). */
export interface CountedClients {
  readonly dynamodb: DynamoDBClient;
  readonly document: DynamoDBDocumentClient;
  /** Commands sent, by name. */
  readonly requests: Map<string, number>;
  total(): number;
  destroy(): void;
}

export function countedClients(endpoint: string, intercept?: (commandName: string) => void): CountedClients {
  const dynamodb = new DynamoDBClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint });
  const requests = new Map<string, number>();
  dynamodb.middlewareStack.add(
    (next, context) => async (args) => {
      const name = context.commandName ?? 'unknown';
      requests.set(name, (requests.get(name) ?? 0) + 1);
      const result = await next(args);
      intercept?.(name);
      return result;
    },
    { step: 'initialize', name: 'benchRequestCounter' },
  );
  return {
    dynamodb,
    document: DynamoDBDocumentClient.from(dynamodb),
    requests,
    total: () => [...requests.values()].reduce((sum, n) => sum + n, 0),
    destroy: () => dynamodb.destroy(),
  };
}

/** The tables of one path: business items (and our inbox) in an outbox-shaped table, Powertools' records in a table keyed by `id` as its docs require. */
export interface PathTables {
  readonly business: string;
  readonly idempotency: string;
}

export async function createPathTables(client: DynamoDBClient, prefix: string): Promise<PathTables> {
  const tables = { business: `${prefix}-business`, idempotency: `${prefix}-idempotency` };
  await createOutboxTable(client, tables.business);
  await client.send(
    new CreateTableCommand({
      TableName: tables.idempotency,
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  await waitUntilTableExists({ client, maxWaitTime: 30, minDelay: 1, maxDelay: 1 }, { TableName: tables.idempotency });
  await client.send(
    new UpdateTimeToLiveCommand({ TableName: tables.idempotency, TimeToLiveSpecification: { AttributeName: 'expiration', Enabled: true } }),
  );
  return tables;
}

/** The business item an event's effect lands on, and the update that applies it once. */
export const counterKey = (aggregateId: string) => ({ pk: `COUNTER#${aggregateId}`, sk: 'COUNTER' });
const applyEffect = (tableName: string, aggregateId: string, eventId: string) => ({
  TableName: tableName,
  Key: counterKey(aggregateId),
  UpdateExpression: 'ADD applied :one SET lastEventId = :id',
  ExpressionAttributeValues: { ':one': 1, ':id': eventId },
});

/** An SQS record of a raw-delivery subscription carrying the envelope, as Lambda passes it. */
export function sqsRecord(body: string, messageId: string, receiveCount = 1): SQSRecord {
  return {
    messageId,
    receiptHandle: `receipt-${messageId}`,
    body,
    attributes: {
      ApproximateReceiveCount: String(receiveCount),
      SentTimestamp: String(Date.now()),
      SenderId: 'AIDAEXAMPLE',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
    },
    messageAttributes: {
      type: { dataType: 'String', stringValue: EVENT_TYPE, stringListValues: [], binaryListValues: [] },
      aggregatetype: { dataType: 'String', stringValue: 'order', stringListValues: [], binaryListValues: [] },
    },
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:bench',
    awsRegion: 'us-east-1',
  };
}

/** An envelope as the relay publishes it. */
export function benchEnvelope(id: string, aggregateId: string, sequence: number): string {
  return envelopeJson(
    { source: BENCH_SOURCE, aggregateType: 'order', aggregateId, sequenceEpoch: '2026-01-01T00:00:00.000Z' },
    { id, type: EVENT_TYPE, time: new Date().toISOString(), data: '{"total":4200,"currency":"EUR"}' },
    sequence,
  );
}

/** A Lambda context with `remainingMs` left, as Lambda passes it. */
export function lambdaContext(remainingMs: number, requestId = 'bench-request'): Context {
  const deadline = Date.now() + remainingMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'bench-consumer',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:bench-consumer',
    memoryLimitInMB: '256',
    awsRequestId: requestId,
    logGroupName: '/aws/lambda/bench-consumer',
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** Called once a message is done (acknowledged or not): the benchmark times messages by it. */
export type OnMessageDone = () => void;

export type BatchHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** Records handled in turn, each one's failure reported alone. */
function perRecord(handle: (record: SQSRecord) => Promise<unknown>, onDone: OnMessageDone): (event: SQSEvent) => Promise<SQSBatchResponse> {
  return async (event) => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      try {
        await handle(record);
      } catch {
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
      onDone();
    }
    return { batchItemFailures };
  };
}

/** Builds one path's Lambda handler over its clients and tables. */
export function pathHandler(path: PathName, clients: CountedClients, tables: PathTables, onDone: OnMessageDone = () => {}): BatchHandler {
  const { document } = clients;
  const write = (envelope: { id: string; subject: string }) =>
    document.send(new UpdateCommand(applyEffect(tables.business, envelope.subject, envelope.id)));
  switch (path) {
    case 'powertools': {
      const persistenceStore = new DynamoDBPersistenceLayer({ tableName: tables.idempotency, awsSdkV3Client: clients.dynamodb });
      const config = new IdempotencyConfig({ eventKeyJmesPath: 'powertools_json(body).id' });
      const handleRecord = makeIdempotent(
        async (record: SQSRecord) => {
          await write(JSON.parse(record.body));
          return true;
        },
        { persistenceStore, config },
      );
      const batch = perRecord(handleRecord, onDone);
      return (event, context) => {
        // As Powertools' docs ask of a batch: the in-progress records expire with the invocation.
        config.registerLambdaContext(context);
        return batch(event);
      };
    }
    case 'transaction':
    case 'batch':
    case 'claim': {
      const consumer = createConsumer({
        name: 'bench',
        sources: [BENCH_SOURCE],
        inbox: { document, tableName: tables.business },
        handlers: {
          [EVENT_TYPE]:
            path !== 'claim'
              ? { handle: (event, ctx) => ctx.write({ Update: applyEffect(tables.business, event.subject, event.id) }) }
              : { idempotency: 'claim', handle: (event) => write(event).then(() => undefined) },
        },
        ...(path === 'batch' ? { commit: 'batch' as const } : {}),
        logger: silentLogger,
        // The consumer counts each message's outcome as it is done: the moment the benchmark times.
        metrics: { addMetric: onDone },
      });
      return consumer.handler;
    }
    case 'bare':
      return perRecord((record) => write(JSON.parse(record.body)), onDone);
    case 'floor':
      return perRecord(async (record) => {
        const envelope = JSON.parse(record.body) as { id: string; source: string; subject: string };
        // A cancelled transaction is the dedup item's condition (nothing else here has one): a duplicate, acknowledged.
        await document
          .send(
            new TransactWriteCommand({
              TransactItems: [
                { Update: applyEffect(tables.business, envelope.subject, envelope.id) },
                {
                  Put: {
                    TableName: tables.business,
                    Item: { pk: `DEDUP#${envelope.id}`, sk: envelope.source },
                    ConditionExpression: 'attribute_not_exists(pk)',
                  },
                },
              ],
            }),
          )
          .catch((error: unknown) => {
            if ((error as Error).name !== 'TransactionCanceledException') throw error;
          });
      }, onDone);
  }
}
