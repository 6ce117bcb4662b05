import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { beforeAll, describe, expect, it } from 'vitest';
import { createConsumer } from '../../shared/consumer/consumer.js';
import type { RejectionCode } from '../../shared/consumer/errors.js';
import type { ConsumerMessage, EventHandler } from '../../shared/consumer/types.js';
import { anEnvelope, snsNotification, TEST_SOURCE, TEST_TOPIC_ARN } from '../helpers/envelopes.js';
import { freshTable, testClients } from '../helpers/local.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';

const clients = testClients();
let tableName: string;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'hostile-consumer'));
});

/** JSON text of arrays nested `depth` deep. */
const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** An envelope's body with `data` replaced by this JSON text, as any producer could send it. */
const withDataText = (dataText: string): string => {
  const body = anEnvelope().body;
  return `${body.slice(0, body.lastIndexOf('"data":'))}"data":${dataText}}`;
};

/** A schema that reports an issue, having put into the data what JSON.stringify refuses (a BigInt). */
const schemaLeavingBigInt: StandardSchemaV1 = {
  '~standard': {
    version: 1,
    vendor: 'hostile',
    validate: (value) => {
      (value as Record<string, unknown>).amount = 10n;
      return { issues: [{ message: 'amount must be a number' }] };
    },
  },
};

/** A schema whose issue cannot even be turned into text. */
const schemaWithUnprintableIssue: StandardSchemaV1 = {
  '~standard': {
    version: 1,
    vendor: 'hostile',
    validate: () => ({
      issues: [
        {
          get message(): string {
            throw new Error('no message');
          },
        },
      ],
    }),
  },
};

interface Row {
  readonly input: string;
  readonly message: () => ConsumerMessage;
  /** `processed`, or the code it is rejected with. */
  readonly outcome: 'processed' | RejectionCode;
  /** What the reason must say: the limit, what was given, what is allowed. */
  readonly reason?: readonly string[];
  readonly handler?: Pick<EventHandler, 'schema'>;
}

const raw = (body: string) => () => ({ messageId: 'm', body });

const ROWS: readonly Row[] = [
  {
    input: 'an event id of 3,000 characters',
    message: raw(anEnvelope({ id: 'i'.repeat(3000) }).body),
    outcome: 'LIMIT_EXCEEDED',
    reason: ['id is 3000 bytes long', 'allowed: at most 1024 bytes', 'part of the inbox key'],
  },
  { input: 'an event id of 1,024 bytes', message: raw(anEnvelope({ id: 'é'.repeat(512) }).body), outcome: 'processed' },
  {
    input: 'a subject of 5,000 characters',
    message: raw(anEnvelope({ aggregateId: 's'.repeat(5000) }).body),
    outcome: 'LIMIT_EXCEEDED',
    reason: ['subject is 5000 bytes long', `"${'s'.repeat(120)}…"`, 'allowed: at most 1024 bytes'],
  },
  { input: 'a subject of 1,024 bytes', message: raw(anEnvelope({ aggregateId: 's'.repeat(1024) }).body), outcome: 'processed' },
  {
    input: 'an aggregatetype of 300 characters',
    message: raw(anEnvelope({ aggregateType: 'a'.repeat(300) }).body),
    outcome: 'LIMIT_EXCEEDED',
    reason: ['aggregatetype is 300 bytes long', 'allowed: at most 256 bytes'],
  },
  {
    input: 'data nested 200,000 deep',
    message: raw(withDataText(nested(200_000))),
    outcome: 'LIMIT_EXCEEDED',
    reason: ['nests arrays and objects 200001 levels deep', 'allowed: at most 65', 'data at most 64 levels'],
  },
  {
    input: 'data nested 200,000 deep in an SNS notification',
    message: raw(snsNotification(withDataText(nested(200_000)))),
    outcome: 'LIMIT_EXCEEDED',
    reason: ["The SNS notification's Message nests arrays and objects 200001 levels deep"],
  },
  {
    input: 'a body nested 200,000 deep',
    message: raw(nested(200_000)),
    outcome: 'LIMIT_EXCEEDED',
    reason: ['The message body nests arrays and objects 200000 levels deep'],
  },
  { input: 'data nested 64 deep', message: raw(withDataText(nested(64))), outcome: 'processed' },
  { input: 'data nested 65 deep', message: raw(withDataText(nested(65))), outcome: 'LIMIT_EXCEEDED', reason: ['66 levels deep'] },
  {
    input: 'data holding 100,000 brackets in a string',
    message: raw(withDataText(JSON.stringify('['.repeat(100_000)))),
    outcome: 'processed',
  },
  {
    input: 'data that fails a schema which leaves a BigInt in it, so JSON.stringify of the data throws',
    message: raw(anEnvelope().body),
    handler: { schema: schemaLeavingBigInt },
    outcome: 'SCHEMA_VALIDATION_FAILED',
    reason: ['failed its schema: amount must be a number', 'not shown: JSON.stringify failed'],
  },
  {
    input: 'data that fails a schema whose issue cannot be made text',
    message: raw(anEnvelope().body),
    handler: { schema: schemaWithUnprintableIssue },
    outcome: 'SCHEMA_VALIDATION_FAILED',
    reason: ['the issues cannot be shown: no message'],
  },
  {
    input: 'an event of another source',
    message: raw(anEnvelope({ source: 'urn:attacker' }).body),
    outcome: 'UNTRUSTED_SOURCE',
    reason: ['source "urn:attacker"', `allowed: "${TEST_SOURCE}"`],
  },
  {
    input: 'an SNS notification of another topic',
    message: raw(snsNotification(anEnvelope().body, 'arn:aws:sns:us-east-1:000000000000:forged')),
    outcome: 'UNTRUSTED_TOPIC',
  },
  {
    input: 'an SNS notification of the configured topic',
    message: raw(snsNotification(anEnvelope().body, TEST_TOPIC_ARN)),
    outcome: 'processed',
  },
  {
    input: 'a raw message whose type attribute differs from its envelope',
    message: () => ({
      messageId: 'm',
      body: anEnvelope().body,
      messageAttributes: { type: { dataType: 'String', stringValue: 'order.paid' } },
    }),
    outcome: 'ATTRIBUTE_MISMATCH',
  },
  { input: 'a body that is not JSON', message: raw('{"id":'), outcome: 'INVALID_JSON' },
];

/** The keys of every item in the table written for this consumer: its inbox records and its handler's writes. */
async function itemsOf(consumer: string): Promise<string[]> {
  const { Items = [] } = await clients.document.send(new ScanCommand({ TableName: tableName, ConsistentRead: true }));
  return Items.map((item) => String(item.pk)).filter((pk) => pk.startsWith(`INBOX#${consumer}#`) || pk.startsWith(`WROTE#${consumer}`));
}

describe('consumer: hostile inputs, each rejected with its reason (to the DLQ, never retried) and nothing written, or processed', () => {
  ROWS.forEach((row, index) => {
    const name = `hostile-${index}`;
    it(`${row.outcome === 'processed' ? 'processes' : `rejects (${row.outcome})`} ${row.input}`, async () => {
      const telemetry = recordingTelemetry();
      const consumer = createConsumer({
        name,
        sources: [TEST_SOURCE],
        topicArns: [TEST_TOPIC_ARN],
        inbox: { document: clients.document, tableName },
        logger: telemetry.logger,
        metrics: telemetry.metrics,
        handlers: {
          'order.placed': {
            ...row.handler,
            handle: (_event, ctx) => ctx.write({ Put: { TableName: tableName, Item: { pk: `WROTE#${name}`, sk: 'WROTE' } } }),
          },
        },
      });
      const { outcomes, batchItemFailures } = await consumer.process([row.message()]);
      const [outcome] = outcomes;
      const items = await itemsOf(name);
      if (row.outcome === 'processed') {
        expect(outcome?.status, JSON.stringify(outcome)).toBe('processed');
        expect(items.sort()).toEqual([`INBOX#${name}#${(outcome as { eventId: string }).eventId}`, `WROTE#${name}`].sort());
        return;
      }
      expect(outcome?.status, outcome?.status === 'failed' ? outcome.error.message : '').toBe('rejected');
      const error = (outcome as Extract<typeof outcome, { status: 'rejected' }>).error;
      expect(error).toMatchObject({ name: 'MessageRejectedError', code: row.outcome });
      for (const fragment of row.reason ?? []) expect(error.message).toContain(fragment);
      // The reason quotes what was given, cut short: a log line, not the message again.
      expect(error.message.length).toBeLessThan(1000);
      expect(batchItemFailures).toEqual([{ itemIdentifier: 'm' }]);
      // Linear work is shown by counting (test/unit/consumer-limits.test.ts), never by timing a test.
      expect(items).toEqual([]);
    });
  });
});
