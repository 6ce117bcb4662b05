import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, type PutObjectCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { createArchiverHandler } from '../../shared/archive/archiver.js';
import type { ArchiverS3Client } from '../../shared/archive/archiver-types.js';
import { decodeArchiveObject } from '../../shared/archive/layout.js';
import { batchBody } from '../../shared/envelope.js';
import { anEnvelope, anSqsEvent, anSqsRecord } from '../helpers/envelopes.js';
import { emulatorForFile } from '../helpers/local.js';

/*
 * The real archiver handler against the emulator's S3: a write that S3 refuses in the middle of a
 * batch (the object sent to a bucket that does not exist, so the error is S3's own) fails exactly
 * the messages with an envelope in that object, and every message it acknowledges has each of its
 * envelopes in the bucket.
 */

const { clients } = await emulatorForFile();
const bucket = 'archiver-s3-errors';
const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const noMetrics = { addMetric: () => {} };

beforeAll(async () => {
  await clients.s3.send(new CreateBucketCommand({ Bucket: bucket }));
});

/** The emulator's S3, with the writes `misdirect` picks sent to a bucket that does not exist. */
function s3Refusing(misdirect: (key: string) => boolean): ArchiverS3Client & { refused: string[] } {
  const refused: string[] = [];
  return {
    refused,
    send: (command: PutObjectCommand, options) => {
      if (!misdirect(command.input.Key as string)) return clients.s3.send(command, options);
      refused.push(command.input.Key as string);
      command.input.Bucket = `${bucket}-missing`;
      return clients.s3.send(command, options);
    },
  };
}

/** Every event id in the bucket. */
async function archivedIds(): Promise<string[]> {
  const { Contents = [] } = await clients.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'events/v1/' }));
  const ids: string[] = [];
  for (const { Key } of Contents) {
    const object = await clients.s3.send(new GetObjectCommand({ Bucket: bucket, Key }));
    const decoded = decodeArchiveObject(Key as string, await object.Body!.transformToByteArray());
    for (const { record } of decoded.lines) ids.push((record as { id: string }).id);
  }
  return ids;
}

/** An envelope at a time. */
const at = (time: string, spec: Parameters<typeof anEnvelope>[0]) => {
  const { id, body } = anEnvelope(spec);
  return { id, value: { ...JSON.parse(body), time } };
};

describe('the archiver when S3 refuses a write in the middle of a batch', () => {
  it('fails exactly the messages of the refused object, and acknowledges only messages whose every envelope is in the bucket', async () => {
    const placed = at('2026-03-01T10:10:00.000Z', { type: 'order.placed', aggregateId: 'o-1' });
    const shipped = at('2026-03-01T10:20:00.000Z', { type: 'order.shipped', aggregateId: 'o-2' });
    // A batch message whose events fall in two hours: written to two objects.
    const first = at('2026-03-01T10:59:59.000Z', { type: 'order.placed', aggregateId: 'o-3' });
    const second = at('2026-03-01T11:00:01.000Z', { type: 'order.placed', aggregateId: 'o-3' });
    const records = [
      anSqsRecord(JSON.stringify(placed.value)),
      anSqsRecord(JSON.stringify(shipped.value)),
      anSqsRecord(batchBody([JSON.stringify(first.value), JSON.stringify(second.value)])),
    ];
    const ids = [[placed.id], [shipped.id], [first.id, second.id]];
    const s3 = s3Refusing((key) => key.includes('/type=order.placed/date=2026-03-01/hour=11/'));
    const handler = createArchiverHandler({ bucket, s3, logger: quiet, metrics: noMetrics, writeConcurrency: 1 });

    const result = await handler(anSqsEvent(records));

    expect(s3.refused).toHaveLength(1);
    const failed = result.batchItemFailures.map((f) => f.itemIdentifier);
    expect(failed).toEqual([records[2]!.messageId]);
    const archived = await archivedIds();
    records.forEach((record, i) => {
      if (!failed.includes(record.messageId)) for (const id of ids[i]!) expect(archived).toContain(id);
    });
    // The batch message's event of the hour that was written stays: the archive is at-least-once.
    expect(archived.sort()).toEqual([placed.id, shipped.id, first.id].sort());

    // Received again, the failed message is archived whole; its first event is then there twice.
    const again = await createArchiverHandler({ bucket, s3: clients.s3, logger: quiet, metrics: noMetrics })(anSqsEvent([records[2]!]));
    expect(again.batchItemFailures).toEqual([]);
    expect((await archivedIds()).sort()).toEqual([placed.id, shipped.id, first.id, first.id, second.id].sort());
  });
});
