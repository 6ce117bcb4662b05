import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsumer } from '../../shared/consumer/consumer.js';
import { ConsumerOptionsError } from '../../shared/consumer/errors.js';
import { fromSqsRecord } from '../../shared/consumer/messages.js';
import { pollOnce } from '../../shared/consumer/sqs-poller.js';
import type { ConsumerMessage, ProcessOptions } from '../../shared/consumer/types.js';
import { REPLAY_ATTRIBUTE } from '../../shared/envelope.js';
import { anEnvelope, anSqsEvent, anSqsRecord, TEST_SOURCE } from '../helpers/envelopes.js';
import { startEmulator } from '../helpers/fauxqs.js';
import { freshTable, testClients } from '../helpers/local.js';

const clients = testClients();
let tableName: string;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'consumer-entry-points'));
});
afterAll(() => clients.destroy());

/** A consumer whose handler notes each event (and its replay id) and writes a marker item, so what it applied shows in the table. */
function consumerNamed(name: string) {
  const ran: { id: string; replayId: string | undefined }[] = [];
  const consumer = createConsumer({
    name,
    sources: [TEST_SOURCE],
    inbox: { document: clients.document, tableName },
    logger: { info: () => {}, warn: () => {}, error: () => {} },
    metrics: { addMetric: () => {} },
    handlers: {
      'order.placed': {
        handle: (event, ctx) => {
          ran.push({ id: event.id, replayId: ctx.replayId });
          ctx.write({ Put: { TableName: tableName, Item: { pk: `MARK#${name}#${event.id}`, sk: 'MARK' } } });
        },
      },
    },
  });
  return { consumer, ran };
}

/** The items of the table written for a consumer: its inbox records and its handler's markers. */
async function itemsOf(consumer: string): Promise<string[]> {
  const { Items = [] } = await clients.document.send(new ScanCommand({ TableName: tableName, ConsistentRead: true }));
  return Items.map((item) => String(item.pk)).filter((pk) => pk.startsWith(`INBOX#${consumer}#`) || pk.startsWith(`MARK#${consumer}#`));
}

const refusalOf = async (call: Promise<unknown>): Promise<ConsumerOptionsError> => {
  const error = await call.then(
    (value) => new Error(`not refused: resolved ${JSON.stringify(value)}`),
    (e: unknown) => e,
  );
  if (error instanceof ConsumerOptionsError) return error;
  throw error;
};

/** A good record of one event, and the record after it made malformed by `spoil`. */
const batchWith = (spoil: (record: SQSRecord) => unknown): { good: SQSRecord; records: unknown[] } => {
  const good = anSqsRecord(anEnvelope().body, undefined, 'm-good');
  return { good, records: [good, spoil(anSqsRecord(anEnvelope().body, undefined, 'm-bad'))] };
};

describe('consumer entry points: a malformed record gets the outcome it gets from consumer.process', () => {
  /** Each case's consumer has a name of its own, so its items in the table are its own. */
  let cases = 0;

  it.each([
    [
      'a body that is no string (the envelope object itself)',
      (r: SQSRecord) => ({ ...r, body: JSON.parse(r.body) }),
      'body',
      'got an instance of Object; allowed: a string (the message body as text: JSON.stringify an envelope object)',
    ],
    ['no body', (r: SQSRecord) => ({ ...r, body: undefined }), 'body', 'got undefined; allowed: a string'],
    ['no messageId', (r: SQSRecord) => ({ ...r, messageId: undefined }), 'messageId', 'got undefined; allowed: a string'],
    [
      'an attribute without dataType',
      (r: SQSRecord) => ({ ...r, messageAttributes: { type: { stringValue: 'order.placed' } } }),
      'messageAttributes.type.dataType',
      'got undefined; allowed: a string such as "String"',
    ],
    [
      'an attribute of the SQS SDK',
      (r: SQSRecord) => ({ ...r, messageAttributes: { type: { DataType: 'String', StringValue: 'order.placed' } } }),
      'messageAttributes.type',
      'got an attribute of the SQS SDK (DataType, StringValue)',
    ],
    [
      'an attribute whose stringValue is no string',
      (r: SQSRecord) => ({ ...r, messageAttributes: { type: { dataType: 'Number', stringValue: 5 } } }),
      'messageAttributes.type.stringValue',
      'got 5; allowed: a string, or none (a binary attribute: left out, or null as Lambda writes it)',
    ],
  ])(
    '%s: the Lambda handler refuses the batch with ConsumerOptionsError naming the record, before anything is handled or written',
    async (_, spoil, field, said) => {
      const name = `entry-field-${cases++}`;
      const { consumer, ran } = consumerNamed(name);
      const { records } = batchWith(spoil);

      const refusal = await refusalOf(consumer.handler(anSqsEvent(records as SQSRecord[])));

      expect(refusal.field).toBe(`handler.event.Records[1].${field}`);
      expect(refusal.message).toContain(said);
      expect(ran).toEqual([]);
      expect(await itemsOf(name)).toEqual([]);
    },
  );

  it.each([
    ['null', () => null, '', 'got null; allowed: an SQS record'],
    [
      'attributes that are no object',
      (r: SQSRecord) => ({ ...r, attributes: 'ApproximateReceiveCount=1' }),
      '.attributes',
      'got "ApproximateReceiveCount=1"',
    ],
    [
      'a MessageGroupId that is no string',
      (r: SQSRecord) => ({ ...r, attributes: { ...r.attributes, MessageGroupId: 7 } }),
      '.attributes.MessageGroupId',
      'got 7; allowed: a string',
    ],
  ])(
    'a record that is %s: refused with ConsumerOptionsError (not a TypeError), nothing handled or written',
    async (_, spoil, field, said) => {
      const name = `entry-record-${cases++}`;
      const { consumer, ran } = consumerNamed(name);
      const { records } = batchWith(spoil);

      const refusal = await refusalOf(consumer.handler(anSqsEvent(records as SQSRecord[])));

      expect(refusal.field).toBe(`handler.event.Records[1]${field}`);
      expect(refusal.message).toContain(said);
      expect(ran).toEqual([]);
      expect(await itemsOf(name)).toEqual([]);
    },
  );

  it('a replay marker without dataType is refused by the handler as by process, not taken for a replay', async () => {
    const { consumer, ran } = consumerNamed('entry-replay-marker');
    const record = {
      ...anSqsRecord(anEnvelope().body, undefined, 'm-1'),
      messageAttributes: { [REPLAY_ATTRIBUTE]: { stringValue: 'r-1' } },
    };
    const viaProcess = await refusalOf(
      consumer.process([{ messageId: 'm-1', body: record.body, messageAttributes: record.messageAttributes as never }]),
    );
    const viaHandler = await refusalOf(consumer.handler(anSqsEvent([record as unknown as SQSRecord])));

    expect(viaProcess.field).toBe(`process.messages[0].messageAttributes.${REPLAY_ATTRIBUTE}.dataType`);
    expect(viaHandler.field).toBe(`handler.event.Records[0].messageAttributes.${REPLAY_ATTRIBUTE}.dataType`);
    expect(ran).toEqual([]);
    expect(await itemsOf('entry-replay-marker')).toEqual([]);
  });

  it('a well-formed record is still handled and acknowledged, its replay marker read', async () => {
    const { consumer, ran } = consumerNamed('entry-well-formed');
    const envelope = anEnvelope();
    const record = {
      ...anSqsRecord(envelope.body, undefined, 'm-1'),
      messageAttributes: { [REPLAY_ATTRIBUTE]: { dataType: 'String', stringValue: 'r-1', stringListValues: [], binaryListValues: [] } },
    };

    expect(await consumer.handler(anSqsEvent([record]))).toEqual({ batchItemFailures: [] });
    expect(ran).toEqual([{ id: envelope.id, replayId: 'r-1' }]);
  });
});

describe('consumer entry points: records as Lambda builds them are handled', () => {
  it("a binary attribute's stringValue null and a string attribute's binaryValue null, as Lambda writes unset values, are no value", async () => {
    const { consumer, ran } = consumerNamed('entry-lambda-nulls');
    const envelope = anEnvelope();
    const unset = { stringListValues: [], binaryListValues: [] };
    const record = {
      ...anSqsRecord(envelope.body, undefined, 'm-1'),
      messageAttributes: {
        [REPLAY_ATTRIBUTE]: { dataType: 'String', stringValue: 'r-1', binaryValue: null, ...unset },
        checksum: { dataType: 'Binary', stringValue: null, binaryValue: 'AAEC', ...unset },
      },
      md5OfMessageAttributes: null,
    } as unknown as SQSRecord;

    expect(await consumer.handler(anSqsEvent([record]))).toEqual({ batchItemFailures: [] });
    expect(ran).toEqual([{ id: envelope.id, replayId: 'r-1' }]);
    expect(fromSqsRecord(record).messageAttributes).toEqual({
      [REPLAY_ATTRIBUTE]: { dataType: 'String', stringValue: 'r-1' },
      checksum: { dataType: 'Binary' },
    });
  });

  it("consumer.process takes a Lambda record's attributes as they come, a binary one's stringValue null", async () => {
    const { consumer, ran } = consumerNamed('entry-process-lambda-nulls');
    const envelope = anEnvelope();
    const unset = { stringListValues: [], binaryListValues: [] };
    const messageAttributes = {
      [REPLAY_ATTRIBUTE]: { dataType: 'String', stringValue: 'r-2', binaryValue: null, ...unset },
      checksum: { dataType: 'Binary', stringValue: null, binaryValue: 'AAEC', ...unset },
    } as unknown as ConsumerMessage['messageAttributes'];

    const { outcomes } = await consumer.process([{ messageId: 'm-2', body: envelope.body, messageAttributes }]);

    expect(outcomes).toMatchObject([{ status: 'processed' }]);
    expect(ran).toEqual([{ id: envelope.id, replayId: 'r-2' }]);
  });

  it('a getRemainingTimeInMillis at or past the timeout (0, -5) is a time left, not refused', async () => {
    const { consumer, ran } = consumerNamed('entry-time-up');
    const envelopes = [anEnvelope(), anEnvelope()];
    for (const [i, left] of [0, -5].entries()) {
      const context = { getRemainingTimeInMillis: () => left };
      const envelope = envelopes[i] as (typeof envelopes)[number];
      expect(await consumer.handler(anSqsEvent([anSqsRecord(envelope.body)]), context)).toEqual({ batchItemFailures: [] });
    }
    expect(ran.map((r) => r.id)).toEqual(envelopes.map((e) => e.id));
  });
});

describe("consumer entry points: the Lambda context's time left is checked as process checks claimExpiresAt", () => {
  it.each([
    ['undefined', undefined],
    ['NaN', Number.NaN],
    ['a string', '30000'],
    ['Infinity', Number.POSITIVE_INFINITY],
  ])('a getRemainingTimeInMillis that gives %s is refused with ConsumerOptionsError before any claim is taken', async (_, left) => {
    const name = `entry-context-${String(left)}`.replace(/[^A-Za-z0-9-]/g, '');
    const ran: string[] = [];
    const consumer = createConsumer({
      name,
      sources: [TEST_SOURCE],
      inbox: { document: clients.document, tableName },
      logger: { info: () => {}, warn: () => {}, error: () => {} },
      metrics: { addMetric: () => {} },
      handlers: { 'order.placed': { idempotency: 'claim', handle: (event) => void ran.push(event.id) } },
    });
    const context = { getRemainingTimeInMillis: () => left as number };

    const refusal = await refusalOf(consumer.handler(anSqsEvent([anSqsRecord(anEnvelope().body)]), context));

    expect(refusal.field).toBe('handler.context.getRemainingTimeInMillis');
    expect(refusal.message).toContain(`allowed: the milliseconds the invocation has left, a finite number`);
    expect(ran).toEqual([]);
    expect(await itemsOf(name)).toEqual([]);
  });
});

describe('consumer entry points: pollOnce reads the message attributes the Lambda handler gets', () => {
  it("asks SQS for the traceparent and tracestate attributes, a message's trace context when its body cannot be read", async () => {
    const server = await startEmulator();
    const sqs = testClients(server.address);
    try {
      const { queueUrl } = server.createQueue('entry-trace-attributes');
      const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      await sqs.sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: 'not json',
          MessageAttributes: {
            traceparent: { DataType: 'String', StringValue: traceparent },
            tracestate: { DataType: 'String', StringValue: 'vendor=a' },
          },
        }),
      );
      const { consumer } = consumerNamed('entry-trace-attributes');
      const given: ConsumerMessage[] = [];
      const watching = {
        process: (messages: readonly ConsumerMessage[], options?: ProcessOptions) => {
          given.push(...messages);
          return consumer.process(messages, options);
        },
      };

      const { result } = await pollOnce({ sqs: sqs.sqs, queueUrl, consumer: watching, visibilityTimeoutSeconds: 30 });

      expect(result.outcomes).toMatchObject([{ status: 'rejected', error: { code: 'INVALID_JSON' } }]);
      expect(given[0]?.messageAttributes).toEqual({
        traceparent: { dataType: 'String', stringValue: traceparent },
        tracestate: { dataType: 'String', stringValue: 'vendor=a' },
      });
    } finally {
      sqs.destroy();
      await server.stop();
    }
  });
});
