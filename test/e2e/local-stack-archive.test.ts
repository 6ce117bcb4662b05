import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localApp } from '../../examples/orders/local-app.js';
import { config } from '../../examples/orders/outbox.config.js';
import { decodeArchiveObject, parseArchiveObjectKey } from '../../shared/archive/layout.js';
import { type LocalStack, startLocalStack } from '../../shared/local/stack/local-stack.js';

let stack: LocalStack;
const errors: unknown[] = [];

beforeAll(async () => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  stack = await startLocalStack({ config, ...localApp(), apiPort: 0, onError: (source, error) => errors.push({ source, error }) });
});

afterAll(async () => {
  await stack?.stop();
});

async function post(path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${stack.apiUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(response.status).toBeLessThan(300);
  return (await response.json()) as Record<string, unknown>;
}

describe('npm start stack, archive', () => {
  it('archives every event its API writes, beside the consumers, in the emulator’s S3', async () => {
    expect(config.archive).toBeDefined();
    const written: { id: string; type: string }[] = [];
    for (let i = 0; i < 6; i++) {
      const placed = await post('/orders', { total: 10 + i, currency: 'EUR' });
      written.push(...(placed.events as { id: string; type: string }[]));
      const orderId = (placed.order as { orderId: string }).orderId;
      if (i % 2 === 0) written.push(...((await post(`/orders/${orderId}/pay`)).events as { id: string; type: string }[]));
    }

    expect(await stack.archive!.waitForArchived(written.length, 45_000)).toBe(written.length);
    const bucket = stack.archive!.bucket;
    const { Contents = [] } = await stack.clients.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'events/v1/' }));
    const archived: { id: string; type: string }[] = [];
    for (const { Key } of Contents) {
      const object = await stack.clients.s3.send(new GetObjectCommand({ Bucket: bucket, Key }));
      const { lines } = decodeArchiveObject(Key!, await object.Body!.transformToByteArray());
      for (const record of lines.map((l) => l.record) as { id: string; type: string }[]) {
        expect(parseArchiveObjectKey(Key!).partition.type).toBe(record.type);
        archived.push({ id: record.id, type: record.type });
      }
    }
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    expect(archived.sort(byId)).toEqual(written.map(({ id, type }) => ({ id, type })).sort(byId));
    expect(stack.archive!.counts()).toMatchObject({ failedWrites: 0, malformedRecords: 0 });
    expect(errors).toEqual([]);
  });
});
