import { gunzipSync } from 'node:zlib';
import type { PutObjectCommand, PutObjectCommandOutput } from '@aws-sdk/client-s3';
import fc from 'fast-check';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ARCHIVER_ANSWER_MARGIN_MS, createArchiverHandler } from '../../shared/archive/archiver.js';
import { decodeArchiveObject, parseArchiveObjectKey } from '../../shared/archive/layout.js';
import { batchBody } from '../../shared/envelope.js';
import { anEnvelope, anSqsEvent, anSqsRecord, snsNotification } from '../helpers/envelopes.js';
import { captureWarnings } from '../helpers/warnings.js';

/** An S3 client that keeps what it is given, and fails the writes `fail` picks. */
function fakeS3(fail: (key: string) => boolean = () => false) {
  const objects = new Map<string, { body: Uint8Array; contentType: string | undefined }>();
  const attempts: string[] = [];
  return {
    objects,
    attempts,
    send: async (command: PutObjectCommand): Promise<PutObjectCommandOutput> => {
      const key = command.input.Key as string;
      attempts.push(key);
      if (fail(key)) throw Object.assign(new Error('We encountered an internal error. Please try again.'), { name: 'InternalError' });
      objects.set(key, { body: command.input.Body as Uint8Array, contentType: command.input.ContentType });
      return { $metadata: {} };
    },
  };
}

interface LoggedLine {
  readonly message: string;
  readonly attributes: Record<string, unknown>;
}

const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const noMetrics = { addMetric: () => {} };

/** An envelope (JSON text) of an aggregate at a time. */
function envelopeAt(time: string, spec: Parameters<typeof anEnvelope>[0] = {}): { id: string; body: string } {
  const { id, body } = anEnvelope(spec);
  return { id, body: JSON.stringify({ ...JSON.parse(body), time }) };
}

/** Every object's lines, by key. */
const contents = (objects: Map<string, { body: Uint8Array }>) =>
  Object.fromEntries(
    [...objects].map(([key, { body }]) => [key, decodeArchiveObject(key, body).lines.map((l) => l.record) as { id: string }[]]),
  );

describe('the archiver handler', () => {
  it('writes one gzip NDJSON object per partition, each envelope in the hour of its own time', async () => {
    const s3 = fakeS3();
    const a = envelopeAt('2026-03-01T10:15:00.000Z', { type: 'order.placed' });
    const b = envelopeAt('2026-03-01T10:59:59.999Z', { type: 'order.placed', aggregateId: 'o-2' });
    const c = envelopeAt('2026-03-01T11:00:00.000Z', { type: 'order.placed' });
    const d = envelopeAt('2026-03-01T10:20:00.000Z', { type: 'payment.captured', aggregateType: 'payment', aggregateId: 'p-1' });
    const handler = createArchiverHandler({ bucket: 'archive', s3, logger: quiet, metrics: noMetrics });
    const result = await handler(anSqsEvent([a, b, c, d].map((e) => anSqsRecord(e.body))));
    expect(result.batchItemFailures).toEqual([]);
    const byPartition = Object.fromEntries(
      Object.entries(contents(s3.objects)).map(([key, records]) => {
        const { partition } = parseArchiveObjectKey(key);
        return [`${partition.aggregateType}/${partition.type}/${partition.hour}`, records.map((r) => r.id)];
      }),
    );
    expect(byPartition).toEqual({
      'order/order.placed/2026-03-01T10': [a.id, b.id],
      'order/order.placed/2026-03-01T11': [c.id],
      'payment/payment.captured/2026-03-01T10': [d.id],
    });
    for (const { body, contentType } of s3.objects.values()) {
      expect(contentType).toBe('application/gzip');
      expect(gunzipSync(body).toString('utf8').endsWith('\n')).toBe(true);
    }
  });

  it('keeps each envelope exactly as published', async () => {
    const s3 = fakeS3();
    const legacy = anEnvelope({ legacy: true });
    const current = anEnvelope({ data: { nested: { list: [1, 'two', null] }, text: 'a\nb \u2028' } });
    await createArchiverHandler({ bucket: 'archive', s3, logger: quiet, metrics: noMetrics })(
      anSqsEvent([anSqsRecord(legacy.body), anSqsRecord(current.body)]),
    );
    const records = Object.values(contents(s3.objects)).flat();
    expect(records).toEqual([JSON.parse(legacy.body), JSON.parse(current.body)]);
  });

  it('unpacks a batch message into one line per event, and reads SNS notifications of a subscription without raw delivery', async () => {
    const s3 = fakeS3();
    const events = [1, 2, 3].map((sequence) => anEnvelope({ sequence, type: sequence === 2 ? 'order.paid' : 'order.placed' }));
    const single = anEnvelope({ aggregateId: 'o-9' });
    await createArchiverHandler({ bucket: 'archive', s3, logger: quiet, metrics: noMetrics })(
      anSqsEvent([anSqsRecord(batchBody(events.map((e) => e.body))), anSqsRecord(snsNotification(single.body))]),
    );
    const byType: Record<string, string[]> = {};
    for (const [key, records] of Object.entries(contents(s3.objects))) {
      byType[parseArchiveObjectKey(key).partition.type ?? 'shortened'] = records.map((r) => r.id);
    }
    expect(byType).toEqual({ 'order.placed': [events[0]!.id, events[2]!.id, single.id], 'order.paid': [events[1]!.id] });
  });

  it('places an envelope whose time is not a date in the hour SQS received its message, and says so', async () => {
    const s3 = fakeS3();
    const warnings: LoggedLine[] = [];
    const odd = envelopeAt('not a time');
    const record = anSqsRecord(odd.body);
    const sent = Date.parse('2026-04-02T07:30:00.000Z');
    const summaries: number[] = [];
    await createArchiverHandler({
      bucket: 'archive',
      s3,
      logger: { ...quiet, warn: (message, attributes) => warnings.push({ message, attributes }) },
      metrics: noMetrics,
      onOutcome: (summary) => {
        summaries.push(summary.placedBySentTime);
      },
    })(anSqsEvent([{ ...record, attributes: { ...record.attributes, SentTimestamp: String(sent) } }]));
    const [key] = [...s3.objects.keys()];
    expect(parseArchiveObjectKey(key!).partition.hour).toBe('2026-04-02T07');
    expect(warnings).toEqual([{ message: expect.stringMatching(/not a date/), attributes: { messageId: record.messageId, id: odd.id } }]);
    expect(summaries).toEqual([1]);
  });

  it('places an envelope whose time is not RFC 3339 with an offset on a real date by when SQS received it', async () => {
    const sent = Date.parse('2026-04-02T07:30:00.000Z');
    for (const time of ['5', '2026-03-01T10:15:00', '2026-02-30T10:00:00Z']) {
      const s3 = fakeS3();
      const odd = anSqsRecord(envelopeAt(time).body);
      await createArchiverHandler({ bucket: 'archive', s3, logger: quiet, metrics: noMetrics })(
        anSqsEvent([{ ...odd, attributes: { ...odd.attributes, SentTimestamp: String(sent) } }]),
      );
      expect(
        [...s3.objects.keys()].map((key) => parseArchiveObjectKey(key).partition.hour),
        time,
      ).toEqual(['2026-04-02T07']);
    }
  });

  it('archives an event whose type is too long for a key as it is, under a shortened key', async () => {
    const s3 = fakeS3();
    const type = `注文${'確'.repeat(120)}`;
    const event = envelopeAt('2026-03-01T10:15:00.000Z', { type });
    const result = await createArchiverHandler({ bucket: 'archive', s3, logger: quiet, metrics: noMetrics })(
      anSqsEvent([anSqsRecord(event.body)]),
    );
    expect(result.batchItemFailures).toEqual([]);
    const [[key, records]] = Object.entries(contents(s3.objects)) as [[string, { id: string; type: string }[]]];
    expect(Buffer.byteLength(key, 'utf8')).toBeLessThanOrEqual(1024);
    expect(key).toMatch(/^events\/v1\/aggregatetype=order\/type=%E6%B3%A8%E6%96%87(%E7%A2%BA)+~[0-9a-f]{16}\/date=2026-03-01\/hour=10\//);
    expect(records.map((r) => [r.id, r.type])).toEqual([[event.id, type]]);
  });

  it('places an envelope whose time is a date outside the years 0000–9999 by when SQS received it, and archives the rest of the batch', async () => {
    const sent = Date.parse('2026-04-02T07:30:00.000Z');
    for (const time of ['+010000-01-01T00:00:00.000Z', '-000001-01-01T00:00:00.000Z', '20000']) {
      const s3 = fakeS3();
      const odd = anSqsRecord(envelopeAt(time).body);
      const good = anSqsRecord(envelopeAt('2026-03-01T10:00:00.000Z', { aggregateId: 'o-2' }).body);
      const result = await createArchiverHandler({ bucket: 'archive', s3, logger: quiet, metrics: noMetrics })(
        anSqsEvent([{ ...odd, attributes: { ...odd.attributes, SentTimestamp: String(sent) } }, good]),
      );
      expect(result.batchItemFailures).toEqual([]);
      const hours = [...s3.objects.keys()].map((key) => parseArchiveObjectKey(key).partition.hour).sort();
      expect(hours).toEqual(['2026-03-01T10', '2026-04-02T07']);
    }
  });

  it('keeps an envelope whose type or aggregate type is not well-formed Unicode under malformed/, and archives the rest of the batch', async () => {
    const s3 = fakeS3();
    const badType = anSqsRecord(JSON.stringify({ ...JSON.parse(anEnvelope().body), type: 'order.\ud800placed' }));
    const badAggregate = anSqsRecord(
      JSON.stringify({ ...JSON.parse(anEnvelope({ aggregateId: 'o-3' }).body), aggregatetype: 'ord\udc00er' }),
    );
    const good = anSqsRecord(anEnvelope({ aggregateId: 'o-2' }).body);
    const result = await createArchiverHandler({ bucket: 'archive', s3, logger: quiet, metrics: noMetrics })(
      anSqsEvent([badType, badAggregate, good]),
    );
    expect(result.batchItemFailures).toEqual([]);
    const [malformedKey, ...others] = [...s3.objects.keys()].sort((a, b) =>
      a.startsWith('malformed/') ? -1 : b.startsWith('malformed/') ? 1 : 0,
    );
    expect(malformedKey).toMatch(/^malformed\/v1\//);
    const lines = decodeArchiveObject(malformedKey!, s3.objects.get(malformedKey!)!.body).lines.map((l) => l.record) as Record<
      string,
      unknown
    >[];
    expect(lines.map((l) => [l.messageId, l.reason])).toEqual([
      [badType.messageId, expect.stringMatching(/^type .* is not well-formed Unicode/)],
      [badAggregate.messageId, expect.stringMatching(/^aggregatetype .* is not well-formed Unicode/)],
    ]);
    expect(others).toHaveLength(1);
  });

  it('reports exactly the messages with an envelope in a partition whose write failed', async () => {
    const s3 = fakeS3((key) => key.includes('type=order.cancelled/'));
    const placed = anSqsRecord(envelopeAt('2026-03-01T10:00:00.000Z', { type: 'order.placed' }).body);
    const cancelled = anSqsRecord(envelopeAt('2026-03-01T10:00:00.000Z', { type: 'order.cancelled', aggregateId: 'o-2' }).body);
    const mixed = anSqsRecord(
      batchBody([
        anEnvelope({ aggregateId: 'o-3', sequence: 1, type: 'order.placed' }).body,
        anEnvelope({ aggregateId: 'o-3', sequence: 2, type: 'order.cancelled' }).body,
      ]),
    );
    const other = anSqsRecord(envelopeAt('2026-03-01T12:00:00.000Z', { type: 'order.cancelled', aggregateId: 'o-4' }).body);
    const handler = createArchiverHandler({ bucket: 'archive', s3, logger: quiet, metrics: noMetrics });
    const result = await handler(anSqsEvent([placed, cancelled, mixed, other]));
    expect(result.batchItemFailures).toEqual([cancelled, mixed, other].map((r) => ({ itemIdentifier: r.messageId })));
    // The placed events were written; the failed messages' other envelopes too (at-least-once: a retry writes them again).
    expect(Object.keys(contents(s3.objects)).every((key) => key.includes('type=order.placed/'))).toBe(true);
    expect(Object.values(contents(s3.objects)).flat()).toHaveLength(2);
  });

  it('gives up a write still running shortly before the invocation times out, failing only its messages', async () => {
    const stuck: string[] = [];
    const written: string[] = [];
    const s3 = {
      send: (command: PutObjectCommand, options?: { abortSignal?: AbortSignal }): Promise<PutObjectCommandOutput> => {
        const key = command.input.Key as string;
        if (!key.includes('type=order.cancelled/')) {
          written.push(key);
          return Promise.resolve({ $metadata: {} });
        }
        stuck.push(key);
        // S3 never answers; only the abort ends the write.
        return new Promise((_, reject) => options?.abortSignal?.addEventListener('abort', () => reject(options.abortSignal?.reason)));
      },
    };
    const placed = anSqsRecord(anEnvelope({ type: 'order.placed' }).body);
    const cancelled = anSqsRecord(anEnvelope({ type: 'order.cancelled', aggregateId: 'o-2' }).body);
    const handler = createArchiverHandler({ bucket: 'archive', s3, logger: quiet, metrics: noMetrics });
    const result = await handler(anSqsEvent([placed, cancelled]), { getRemainingTimeInMillis: () => ARCHIVER_ANSWER_MARGIN_MS + 200 });
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: cancelled.messageId }]);
    expect([stuck.length, written.length]).toEqual([1, 1]);
  });

  it('writes more than 10 objects at once under the invocation’s deadline without Node’s listener-leak warning', async () => {
    const capture = captureWarnings();
    onTestFinished(() => capture.stop());
    const partitions = 12;
    let inFlight = 0;
    let allIn: () => void = () => {};
    const together = new Promise<void>((resolve) => {
      allIn = resolve;
    });
    const s3 = {
      // As the SDK does: a request given an abortSignal listens to it while in flight.
      send: async (_command: PutObjectCommand, options?: { abortSignal?: AbortSignal }): Promise<PutObjectCommandOutput> => {
        const onAbort = () => {};
        options?.abortSignal?.addEventListener('abort', onAbort);
        if (++inFlight === partitions) allIn();
        await together;
        options?.abortSignal?.removeEventListener('abort', onAbort);
        return { $metadata: {} };
      },
    };
    const records = Array.from({ length: partitions }, (_, i) => anSqsRecord(anEnvelope({ type: `order.step-${i}` }).body));
    const handler = createArchiverHandler({ bucket: 'archive', s3, logger: quiet, metrics: noMetrics });
    const result = await handler(anSqsEvent(records), { getRemainingTimeInMillis: () => 60_000 });
    expect(result.batchItemFailures).toEqual([]);
    expect(inFlight).toBe(partitions);
    expect(capture.warnings).toEqual([]);
  });

  it('fails no message when every write succeeds, and every message when the bucket refuses all writes', async () => {
    const records = [1, 2, 3].map((n) => anSqsRecord(anEnvelope({ aggregateId: `o-${n}` }).body));
    const down = createArchiverHandler({ bucket: 'archive', s3: fakeS3(() => true), logger: quiet, metrics: noMetrics });
    expect((await down(anSqsEvent(records))).batchItemFailures.map((f) => f.itemIdentifier)).toEqual(records.map((r) => r.messageId));
  });

  it('keeps a message that holds no outbox envelope under malformed/, with its body and the reason, and acknowledges it', async () => {
    const s3 = fakeS3();
    const errors: LoggedLine[] = [];
    const good = anEnvelope();
    const notJson = anSqsRecord('{"half":');
    const notEnvelope = anSqsRecord('{"hello":"world"}');
    const badBatch = anSqsRecord(batchBody([good.body, '{"specversion":"1.0"}']));
    const notJsonWithAttributes = {
      ...notJson,
      messageAttributes: { type: { dataType: 'String', stringValue: 'order.placed', stringListValues: [], binaryListValues: [] } },
    };
    const result = await createArchiverHandler({
      bucket: 'archive',
      s3,
      logger: { ...quiet, error: (message, attributes) => errors.push({ message, attributes }) },
      metrics: noMetrics,
    })(anSqsEvent([notJsonWithAttributes, notEnvelope, badBatch, anSqsRecord(good.body)]));
    expect(result.batchItemFailures).toEqual([]);
    const malformedKeys = [...s3.objects.keys()].filter((key) => key.startsWith('malformed/v1/'));
    expect(malformedKeys).toHaveLength(1);
    expect(malformedKeys[0]).toMatch(/^malformed\/v1\/date=\d{4}-\d{2}-\d{2}\/hour=\d{2}\/[0-9a-f-]+\.ndjson\.gz$/);
    const lines = decodeArchiveObject(malformedKeys[0]!, s3.objects.get(malformedKeys[0]!)!.body).lines.map((l) => l.record) as Record<
      string,
      unknown
    >[];
    expect(lines.map((l) => [l.messageId, l.body])).toEqual([
      [notJson.messageId, notJson.body],
      [notEnvelope.messageId, notEnvelope.body],
      [badBatch.messageId, badBatch.body],
    ]);
    expect(lines[0]).toMatchObject({ reason: expect.stringMatching(/not JSON/), attributes: { type: 'order.placed' } });
    expect(lines[2]).toMatchObject({ reason: expect.stringMatching(/event \[1\] of the batch/) });
    expect(errors.map((e) => e.attributes.messageId)).toEqual([notJson.messageId, notEnvelope.messageId, badBatch.messageId]);
    // The batch with a bad event is not archived in part.
    expect(
      Object.values(contents(s3.objects))
        .flat()
        .filter((r) => r.id === good.id),
    ).toHaveLength(1);
  });

  it('fails a malformed message whose malformed/ object could not be written, so it is retried and reaches the DLQ', async () => {
    const s3 = fakeS3((key) => key.startsWith('malformed/'));
    const bad = anSqsRecord('nope');
    const result = await createArchiverHandler({ bucket: 'archive', s3, logger: quiet, metrics: noMetrics })(
      anSqsEvent([bad, anSqsRecord(anEnvelope().body)]),
    );
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: bad.messageId }]);
  });

  it('names every object it writes anew, so no write ever replaces another batch’s object', async () => {
    const s3 = fakeS3();
    const handler = createArchiverHandler({ bucket: 'archive', s3, logger: quiet, metrics: noMetrics });
    const body = envelopeAt('2026-03-01T10:00:00.000Z').body;
    // The same message twice (a retry), and many invocations at once for the same partition.
    await Promise.all(Array.from({ length: 50 }, () => handler(anSqsEvent([anSqsRecord(body)]))));
    expect(s3.attempts).toHaveLength(50);
    expect(new Set(s3.attempts).size).toBe(50);
    expect(s3.objects.size).toBe(50);
  });

  it('counts archived events, objects, failed writes, failed and malformed messages in its metrics', async () => {
    const added: Record<string, number> = {};
    let published = 0;
    const s3 = fakeS3((key) => key.includes('type=order.cancelled/'));
    const handler = createArchiverHandler({
      bucket: 'archive',
      s3,
      logger: quiet,
      metrics: {
        addMetric: (name, _unit, value) => {
          added[name] = value;
        },
        publishStoredMetrics: () => {
          published++;
        },
      },
    });
    await handler(
      anSqsEvent([
        anSqsRecord(batchBody([anEnvelope({ sequence: 1 }).body, anEnvelope({ sequence: 2 }).body])),
        anSqsRecord(anEnvelope({ type: 'order.cancelled', aggregateId: 'o-2' }).body),
        anSqsRecord('[]'),
      ]),
    );
    expect(added).toEqual({ archivedEvents: 2, objectsWritten: 2, failedWrites: 1, failedRecords: 1, malformedRecords: 1 });
    expect(published).toBe(1);
  });

  it('reports for any mix of partitions and failing writes exactly the messages that touched a failed partition', async () => {
    const types = ['a.one', 'a.two', 'a.three'];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.constantFrom(...types), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 12 }),
        fc.subarray(types),
        async (messages, failing) => {
          const s3 = fakeS3((key) => failing.some((type) => key.includes(`type=${type}/`)));
          const records = messages.map((messageTypes, m) =>
            anSqsRecord(batchBody(messageTypes.map((type, i) => anEnvelope({ aggregateId: `x-${m}`, sequence: i + 1, type }).body))),
          );
          const result = await createArchiverHandler({ bucket: 'archive', s3, logger: quiet, metrics: noMetrics })(anSqsEvent(records));
          const expected = records.filter((_, m) => messages[m]!.some((type) => failing.includes(type))).map((r) => r.messageId);
          expect(result.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(expected);
          const archived = Object.values(contents(s3.objects)).flat().length;
          expect(archived).toBe(messages.flat().filter((type) => !failing.includes(type)).length);
        },
      ),
      { numRuns: 60 },
    );
  });
});
