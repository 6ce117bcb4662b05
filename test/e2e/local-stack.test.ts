import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localApp } from '../../examples/orders/local-app.js';
import { config } from '../../examples/orders/outbox.config.js';
import { type LocalDelivery, type LocalStack, startLocalStack } from '../../shared/local/stack/local-stack.js';
import { waitFor } from '../helpers/wait.js';

interface WrittenEvent {
  readonly id: string;
  readonly type: string;
  readonly sequence: number;
}

let stack: LocalStack;
const deliveries: LocalDelivery[] = [];
const deliveredTo = new Map<string, string[]>();

beforeAll(async () => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  stack = await startLocalStack({
    config,
    ...localApp(),
    apiPort: 0,
    onDelivery: (delivery) => {
      deliveries.push(delivery);
      const id = (JSON.parse(delivery.body) as { id: string }).id;
      deliveredTo.set(id, [...(deliveredTo.get(id) ?? []), delivery.subscriber]);
    },
  });
});

afterAll(async () => {
  await stack?.stop();
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${stack.apiUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

const eventsOf = (json: Record<string, unknown>) => json.events as WrittenEvent[];
const orderIdOf = (json: Record<string, unknown>) => (json.order as { orderId: string }).orderId;

describe('npm start stack, end to end', () => {
  it('delivers every event written through the API to its consumer, with its commit→delivery lag', async () => {
    const written: WrittenEvent[] = [];
    const orderIds: string[] = [];
    for (let i = 0; i < 12; i++) {
      const placed = await call('POST', '/orders', { total: 10 + i, currency: 'EUR' });
      expect(placed.status).toBe(201);
      orderIds.push(orderIdOf(placed.json));
      written.push(...eventsOf(placed.json));
    }
    for (const orderId of orderIds.slice(0, 5)) {
      const paid = await call('POST', `/orders/${orderId}/pay`);
      expect(paid.status).toBe(200);
      written.push(...eventsOf(paid.json));
    }
    for (const orderId of orderIds.slice(5, 8)) {
      const cancelled = await call('POST', `/orders/${orderId}/cancel`, { reason: 'test' });
      expect(cancelled.status).toBe(200);
      written.push(...eventsOf(cancelled.json));
    }

    await waitFor(() => written.every((e) => deliveredTo.has(e.id)), { timeoutMs: 45_000, what: 'every written event delivered' });

    for (const event of written) {
      const expected = event.type === 'payment.captured' ? 'order-view-payments' : 'order-view';
      // At-least-once: a redelivery is allowed, a delivery to the wrong consumer is not.
      expect(new Set(deliveredTo.get(event.id)), `${event.type} ${event.id}`).toEqual(new Set([expected]));
    }
    expect(written.map((e) => e.type).sort()).toEqual(
      [...Array(12).fill('order.placed'), ...Array(5).fill('payment.captured'), ...Array(3).fill('order.cancelled')].sort(),
    );
    expect(stack.stats.written).toBe(written.length);
    expect(stack.stats.published).toBe(written.length);
    expect(stack.stats.delivered).toBeGreaterThanOrEqual(written.length);
    expect(stack.stats.lag().samples).toBe(stack.stats.delivered);
    expect(deliveries.every((d) => d.lagMs !== undefined && d.lagMs >= 0)).toBe(true);
    expect(stack.deadLetterDepths()).toEqual({ relay: 0, subscribers: { 'order-view': 0, 'order-view-payments': 0 } });

    const cancelled = orderIds[5] as string;
    await waitFor(
      async () => ((await call('GET', `/orders/${cancelled}`)).json.view as { status?: string } | null)?.status === 'CANCELLED',
      {
        timeoutMs: 10_000,
        what: 'the order view to show the cancellation',
      },
    );
  });

  it('rejects paying a cancelled order with 409 ILLEGAL_TRANSITION and writes nothing', async () => {
    const placed = await call('POST', '/orders', { total: 5, currency: 'USD' });
    const orderId = orderIdOf(placed.json);
    expect((await call('POST', `/orders/${orderId}/cancel`)).status).toBe(200);
    const before = stack.stats.written;

    const paid = await call('POST', `/orders/${orderId}/pay`);

    expect(paid.status).toBe(409);
    expect(paid.json.error).toMatchObject({ code: 'ILLEGAL_TRANSITION' });
    expect(String((paid.json.error as { message: string }).message)).toContain('cancelled');
    expect(stack.stats.written).toBe(before);
    expect((await call('GET', `/orders/${orderId}`)).json.order).toMatchObject({ status: 'cancelled' });
  });

  it('rejects bad requests with 4xx and a JSON error naming the field, the value and what is allowed', async () => {
    const badTotal = await call('POST', '/orders', { total: 'abc', currency: 'EUR' });
    const unknownField = await call('POST', '/orders', { total: 1, currency: 'EUR', colour: 'red' });
    const notJson = await call('POST', '/orders', '{"total": 1,');
    const missing = await call('GET', '/orders/no-such-order');
    const emptyId = await call('POST', '/orders//pay');
    const duplicate = await call('POST', '/orders', {
      total: 1,
      currency: 'EUR',
      id: orderIdOf((await call('POST', '/orders', { total: 1, currency: 'EUR' })).json),
    });
    const badKey = await fetch(`${stack.apiUrl}/orders`, {
      method: 'POST',
      headers: { 'idempotency-key': 'x'.repeat(40) },
      body: '{"total":1,"currency":"EUR"}',
    });

    expect(badTotal.status).toBe(400);
    expect(badTotal.json.error).toMatchObject({ code: 'INVALID_FIELD', field: 'total' });
    expect((badTotal.json.error as { message: string }).message).toMatch(/"abc".*allowed: a number/);
    expect(unknownField.json.error).toMatchObject({ code: 'UNKNOWN_FIELD', field: 'colour' });
    expect(notJson.status).toBe(400);
    expect(notJson.json.error).toMatchObject({ code: 'INVALID_JSON' });
    expect(missing.status).toBe(404);
    expect(emptyId.status).toBe(400);
    expect(emptyId.json.error).toMatchObject({ code: 'INVALID_FIELD', field: 'id' });
    expect((emptyId.json.error as { message: string }).message).toMatch(/order id "" is not valid; allowed: /);
    expect(duplicate.status).toBe(409);
    expect(duplicate.json.error).toMatchObject({ code: 'ORDER_EXISTS', field: 'id' });
    expect(badKey.status).toBe(400);
    expect(await badKey.json()).toMatchObject({ error: { code: 'INVALID_IDEMPOTENCY_KEY', field: 'Idempotency-Key' } });
  });

  it('replays a retried request with the same Idempotency-Key: same events, nothing written twice', async () => {
    const request = {
      method: 'POST',
      headers: { 'idempotency-key': `key-${Date.now()}` },
      body: '{"total":7,"currency":"GBP","id":"idem-1"}',
    };
    const first = (await (await fetch(`${stack.apiUrl}/orders`, request)).json()) as Record<string, unknown>;
    const before = stack.stats.written;
    const retried = await fetch(`${stack.apiUrl}/orders`, request);
    const second = (await retried.json()) as Record<string, unknown>;

    expect(retried.status).toBe(201);
    expect(second.replayed).toBe(true);
    expect(eventsOf(second).map((e) => e.id)).toEqual(eventsOf(first).map((e) => e.id));
    expect(stack.stats.written).toBe(before);

    const pay = { method: 'POST', headers: { 'idempotency-key': `pay-${Date.now()}` } };
    const firstPay = (await (await fetch(`${stack.apiUrl}/orders/idem-1/pay`, pay)).json()) as Record<string, unknown>;
    const retriedPay = await fetch(`${stack.apiUrl}/orders/idem-1/pay`, pay);
    const secondPay = (await retriedPay.json()) as Record<string, unknown>;
    const unkeyedPay = await fetch(`${stack.apiUrl}/orders/idem-1/pay`, { method: 'POST' });

    expect(retriedPay.status).toBe(200);
    expect(secondPay.replayed).toBe(true);
    expect(eventsOf(secondPay).map((e) => e.id)).toEqual(eventsOf(firstPay).map((e) => e.id));
    expect(unkeyedPay.status).toBe(409);
  });

  it('fails with PORT_IN_USE naming the port when the API port is taken, before starting anything else', async () => {
    const port = Number(new URL(String(stack.apiUrl)).port);
    // DynamoDB Local's and the emulator's ports are taken too: had either started first, the error would name its port.
    // (two ports: one port for both is refused before any is tried)
    const holders: Server[] = [createServer(), createServer()];
    const [dynamoDbPort, emulatorPort] = await Promise.all(
      holders.map(
        (holder) =>
          new Promise<number>((resolve) => holder.listen(0, '127.0.0.1', () => resolve((holder.address() as { port: number }).port))),
      ),
    );
    try {
      await expect(startLocalStack({ config, ...localApp(), apiPort: port, dynamoDbPort, emulatorPort })).rejects.toMatchObject({
        code: 'PORT_IN_USE',
        message: expect.stringContaining(`port ${port} for the example API is already in use`),
      });
    } finally {
      await Promise.all(holders.map((holder) => new Promise<void>((resolve) => holder.close(() => resolve()))));
    }
  });

  it('fails with PORT_IN_USE naming the emulator port when it is taken, before starting DynamoDB Local or creating the --persist folder', async () => {
    // DynamoDB Local's port is taken too: had its Java been started first, the error would name that port.
    const holders: Server[] = [createServer(), createServer()];
    const [dynamoDbPort, emulatorPort] = await Promise.all(
      holders.map(
        (holder) =>
          new Promise<number>((resolve) => holder.listen(0, '127.0.0.1', () => resolve((holder.address() as { port: number }).port))),
      ),
    );
    // A --persist folder that does not exist yet is created only once the ports are known to be free.
    const persistDir = join(tmpdir(), `outbox-never-${process.pid}-${emulatorPort}`);
    try {
      await expect(startLocalStack({ config, ...localApp(), apiPort: 0, dynamoDbPort, emulatorPort, persistDir })).rejects.toMatchObject({
        code: 'PORT_IN_USE',
        message: `port ${emulatorPort} for the SNS/SQS emulator is already in use; choose another port or stop what holds it`,
      });
      expect(existsSync(persistDir)).toBe(false);
    } finally {
      rmSync(persistDir, { recursive: true, force: true });
      await Promise.all(holders.map((holder) => new Promise<void>((resolve) => holder.close(() => resolve()))));
    }
  });

  it.each([
    ['dynamoDbPort', 'DynamoDB Local', 'PORT_IN_USE'],
    ['emulatorPort', 'the SNS/SQS emulator', 'PORT_IN_USE'],
  ] as const)('fails with a one-line error naming the port when the %s is taken', async (option, what, code) => {
    const holder: Server = createServer();
    const port = await new Promise<number>((resolve) =>
      holder.listen(0, '127.0.0.1', () => resolve((holder.address() as { port: number }).port)),
    );
    // A --persist folder that does not exist yet is not created for a start refused for its ports.
    const persistDir = join(tmpdir(), `outbox-refused-${process.pid}-${port}`);
    try {
      const error = await startLocalStack({ config, ...localApp(), apiPort: 0, [option]: port, persistDir }).then(
        async (started) => {
          await started.stop();
          return new Error('the stack started on a taken port');
        },
        (e: Error) => e,
      );
      expect(error).toMatchObject({ code });
      expect(error.message).toMatch(new RegExp(`[Pp]ort ${port} for ${what} is already in use`));
      expect(error.message).not.toContain('\n');
      expect(existsSync(persistDir)).toBe(false);
    } finally {
      holder.close();
      rmSync(persistDir, { recursive: true, force: true });
    }
  });

  it('removes a --persist folder its failed start created, and keeps one that was there before', async () => {
    const base = mkdtempSync(join(tmpdir(), 'outbox-failed-start-'));
    const fresh = join(base, 'new', 'data');
    const lowLatency = { ...config, lowLatencyAggregateTypes: ['payment'] } as typeof config;
    const failing = async () => {
      throw new Error('the processor would not start');
    };
    try {
      // Fails after DynamoDB Local has started on the folder.
      await expect(
        startLocalStack({ config: lowLatency, ...localApp(), processor: failing, apiPort: 0, persistDir: fresh }),
      ).rejects.toThrow('the processor would not start');
      expect(existsSync(join(base, 'new'))).toBe(false);

      await expect(
        startLocalStack({ config: lowLatency, ...localApp(), processor: failing, apiPort: 0, persistDir: base }),
      ).rejects.toThrow('the processor would not start');
      expect(existsSync(base)).toBe(true);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
