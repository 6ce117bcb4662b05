import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { localApp } from '../../examples/orders/local-app.js';
import { config as appConfig } from '../../examples/orders/outbox.config.js';
import { defineConfig } from '../../shared/config.js';
import { RELAY_CHECKPOINT_FILE } from '../../shared/local/event-source/checkpoints.js';
import { type LocalStack, type LocalStackOptions, startLocalStack } from '../../shared/local/stack/local-stack.js';
import { PERSIST_LOCK_FILE } from '../../shared/local/stack/persist-lock.js';
import { localRelayHandler } from '../../shared/local/stack/relay.js';
import { waitFor } from '../helpers/wait.js';

// A batch the relay fails is given up on at once, so the test sees it in the failed-batch bucket.
const config = defineConfig({ ...appConfig, relay: { ...appConfig.relay, maxRetryAttempts: 0 } });
const persistDir = mkdtempSync(join(tmpdir(), 'outbox-persist-'));
let stack: LocalStack | undefined;

afterAll(async () => {
  await stack?.stop();
  rmSync(persistDir, { recursive: true, force: true });
});

/** Starts the stack on the persisted data with the real relay, watched: it notes every order it is handed, and throws on `poison`. */
async function start(relayed: string[], delivered: Set<string>): Promise<LocalStack> {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  const app = localApp();
  const relay: LocalStackOptions['relay'] = (deps) => {
    const handler = localRelayHandler(deps);
    return async (event, context) => {
      const ids = event.Records.map((r) => r.dynamodb?.NewImage?.aggregateId?.S ?? '?');
      relayed.push(...ids);
      if (ids.includes('poison')) throw new Error('poison');
      return handler(event, context);
    };
  };
  return startLocalStack({
    config,
    ...app,
    relay,
    apiPort: 0,
    persistDir,
    onDelivery: ({ body }) => delivered.add((JSON.parse(body) as { id: string }).id),
  });
}

async function placeOrder(id: string): Promise<string[]> {
  const response = await fetch(`${stack!.apiUrl}/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id, total: 10, currency: 'EUR' }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { events: { id: string }[] }).events.map((e) => e.id);
}

describe('npm start stack with --persist', () => {
  it('writes a batch the relay gave up on to the failed-batch bucket with its records, under AWS’s key layout', async () => {
    const relayed: string[] = [];
    const delivered = new Set<string>();
    stack = await start(relayed, delivered);
    await placeOrder('poison');
    const good = [...(await placeOrder('good-1')), ...(await placeOrder('good-2'))];
    await waitFor(() => stack!.relayStats.batchesSentToOnFailure === 1 && good.every((id) => delivered.has(id)), {
      timeoutMs: 45_000,
      what: 'the poison batch given up on and the other events delivered',
    });

    const bucket = stack.resources.failedBatchBucket;
    const { Contents = [] } = await stack.clients.s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    expect(Contents).toHaveLength(1);
    expect(Contents[0]!.Key).toMatch(
      /^aws\/lambda\/[^/]+\/shardId-[^/]+\/\d{4}\/\d\d\/\d\d\/\d{4}-\d\d-\d\dT\d\d\.\d\d\.\d\d-[0-9a-f-]{36}$/,
    );
    const object = await stack.clients.s3.send(new GetObjectCommand({ Bucket: bucket, Key: Contents[0]!.Key }));
    const stored = JSON.parse(await object.Body!.transformToString()) as {
      DDBStreamBatchInfo: { batchSize: number };
      payload: string;
    };
    expect(stored.DDBStreamBatchInfo.batchSize).toBe(1);
    // As Lambda's S3 destination writes it: the invocation event as a JSON string.
    expect(typeof stored.payload).toBe('string');
    const payload = JSON.parse(stored.payload) as { Records: { dynamodb: { NewImage: { aggregateId: { S: string } } } }[] };
    expect(payload.Records.map((r) => r.dynamodb.NewImage.aggregateId.S)).toEqual(['poison']);
  });

  it('after a restart, goes on after the relay’s checkpoint instead of handing the whole stream over again', async () => {
    await stack!.stop();
    stack = undefined;
    expect(existsSync(join(persistDir, RELAY_CHECKPOINT_FILE))).toBe(true);
    expect(existsSync(join(persistDir, PERSIST_LOCK_FILE))).toBe(false);
    // A lock left by a run that was killed does not keep the folder.
    writeFileSync(join(persistDir, PERSIST_LOCK_FILE), `${spawnSync('true').pid}\n`);

    const relayed: string[] = [];
    const delivered = new Set<string>();
    stack = await start(relayed, delivered);
    expect(stack.tableCreated).toBe(false);
    const events = await placeOrder('after-restart');
    await waitFor(() => events.every((id) => delivered.has(id)), { timeoutMs: 45_000, what: 'the new event delivered' });

    // Neither the records published before the restart nor the one given up on come again.
    expect(relayed).toEqual(['after-restart']);
  });

  it('refuses a second local stack on the folder while this one runs, before starting anything', async () => {
    expect(stack).toBeDefined();

    await expect(start([], new Set())).rejects.toMatchObject({
      code: 'PERSIST_DIR_IN_USE',
      message: `--persist ${JSON.stringify(persistDir)} is in use by another local stack (pid ${process.pid}, this process); allowed: a folder no other run uses — stop that run, or choose another folder`,
    });
    expect(readFileSync(join(persistDir, PERSIST_LOCK_FILE), 'utf8')).toBe(`${process.pid}\n${hostname()}\n`);
  });
});
