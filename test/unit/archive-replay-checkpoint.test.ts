import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { type CheckpointState, CheckpointWriter, defaultCheckpointPath, readCheckpoint } from '../../shared/archive/checkpoint.js';
import type { ArchivedEvent } from '../../shared/archive/reader-decode.js';
import { ReplayCheckpointError } from '../../shared/archive/replay-errors.js';
import type { ReplayParameters } from '../../shared/archive/replay-options.js';
import { aggregateKeyOf } from '../../shared/archive/replay-order.js';
import { sendWindow } from '../../shared/archive/replay-send.js';
import { MAX_MESSAGE_BYTES } from '../../shared/envelope.js';

const PARAMETERS: ReplayParameters = {
  bucket: 'orders-archive',
  from: '2026-03-01T00:00:00.000Z',
  to: undefined,
  types: ['order.placed'],
  aggregateType: undefined,
  aggregate: undefined,
  queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/q',
};

const aState = (nextHour: string | null): CheckpointState => ({
  version: 1,
  replayId: 'r-1',
  parameters: PARAMETERS,
  to: '2026-03-02T00:00:00.000Z',
  nextHour,
  carry: [],
  carryHours: [],
  updatedAt: '2026-03-05T00:00:00.000Z',
});

const aPath = () => join(mkdtempSync(join(tmpdir(), 'checkpoint-')), 'c.checkpoint');

describe('replay checkpoint', () => {
  it('reads back the state and, per aggregate, the last event sent in the hour under way', () => {
    const path = aPath();
    const writer = new CheckpointWriter(path);
    writer.write(aState('2026-03-01T10'));
    writer.sent([['order', 'o-1', 'e', 3]]);
    writer.sent([
      ['order', 'o-1', 'e', 4],
      ['order', 'o-2', 'e', 1],
    ]);
    writer.close();

    const loaded = readCheckpoint(path);

    expect(loaded?.state).toEqual(aState('2026-03-01T10'));
    expect(loaded?.sent).toEqual(
      new Map([
        [aggregateKeyOf('order', 'o-1'), { epoch: 'e', sequence: 4 }],
        [aggregateKeyOf('order', 'o-2'), { epoch: 'e', sequence: 1 }],
      ]),
    );
  });

  it('starts the file afresh at an hour done, and ignores a last line cut short by a crash', () => {
    const path = aPath();
    const writer = new CheckpointWriter(path);
    writer.write(aState('2026-03-01T10'));
    writer.sent([['order', 'o-1', 'e', 3]]);
    writer.write(aState('2026-03-01T11'));
    writer.sent([['order', 'o-9', 'e', 7]]);
    writer.close();
    appendFileSync(path, '{"hour":"2026-03-01T11","sent":[["order","o-9","e",8');

    expect(readFileSync(path, 'utf8').split('\n')).toHaveLength(3);
    expect(readCheckpoint(path)?.sent).toEqual(new Map([[aggregateKeyOf('order', 'o-9'), { epoch: 'e', sequence: 7 }]]));
  });

  it('fails on a file that is not a checkpoint, naming it', () => {
    const path = aPath();
    writeFileSync(path, 'hello\n');
    expect(() => readCheckpoint(path)).toThrow(ReplayCheckpointError);
    expect(() => readCheckpoint(path)).toThrow(`replay checkpoint ${path} does not start with a replay checkpoint`);
    expect(readCheckpoint(`${path}.missing`)).toBeUndefined();
  });

  it('is named after the selection by default, the same for the same selection and another for another', () => {
    expect(defaultCheckpointPath(PARAMETERS, '/work')).toMatch(/^\/work\/replay-[0-9a-f]{12}\.checkpoint$/);
    expect(defaultCheckpointPath({ ...PARAMETERS }, '/work')).toBe(defaultCheckpointPath(PARAMETERS, '/work'));
    expect(defaultCheckpointPath({ ...PARAMETERS, types: ['order.paid'] }, '/work')).not.toBe(defaultCheckpointPath(PARAMETERS, '/work'));
  });
});

describe('sendWindow', () => {
  const anEvent = (aggregateId: string, bytes: number): ArchivedEvent => ({
    id: `${aggregateId}-1`,
    type: 'order.placed',
    aggregateType: 'order',
    aggregateId,
    epoch: 'e',
    sequence: 1,
    timeMs: 0,
    body: JSON.stringify({ pad: 'x'.repeat(bytes) }),
  });

  it('keeps each request within 256 KiB, a larger envelope alone in its own', async () => {
    const requests: number[][] = [];
    const sqs = {
      send: async (command: SendMessageBatchCommand) => {
        const entries = command.input.Entries ?? [];
        requests.push(entries.map((e) => Buffer.byteLength(e.MessageBody ?? '')));
        return { Successful: entries.map((e) => ({ Id: e.Id })), Failed: [] };
      },
    };
    const events = [anEvent('big', 300_000), ...Array.from({ length: 12 }, (_, i) => anEvent(`o-${i}`, 60_000))];
    const aggregates = new Map(events.map((e) => [aggregateKeyOf('order', e.aggregateId), [e]]));
    const acknowledged: string[] = [];

    await sendWindow(
      { sqs: sqs as never, queueUrl: 'http://q/q', fifo: false, replayId: 'r', concurrency: 1, limiter: { take: async () => true } },
      aggregates,
      (sent) => acknowledged.push(...sent.map((e) => e.id)),
    );

    expect(requests[0]).toHaveLength(1);
    for (const request of requests.slice(1)) expect(request.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    expect(requests.slice(1).map((r) => r.length)).toEqual([4, 4, 4]);
    expect(acknowledged).toHaveLength(13);
  });

  it('reports an event the queue refuses for good with the later events of its aggregate, and sends the other aggregates', async () => {
    const sqs = {
      send: async (command: SendMessageBatchCommand) => {
        const entries = command.input.Entries ?? [];
        const bad = entries.filter((e) => e.MessageBody?.includes('"bad"'));
        return {
          Successful: entries.filter((e) => !bad.includes(e)).map((e) => ({ Id: e.Id })),
          Failed: bad.map((e) => ({ Id: e.Id, Code: 'InvalidMessageContents', SenderFault: true, Message: 'no' })),
        };
      },
    };
    const e = (aggregateId: string, sequence: number, body = '{}'): ArchivedEvent => ({
      ...anEvent(aggregateId, 0),
      id: `${aggregateId}-${sequence}`,
      sequence,
      body,
    });
    const aggregates = new Map([
      [aggregateKeyOf('order', 'o-1'), [e('o-1', 1), e('o-1', 2, '{"bad":1}'), e('o-1', 3)]],
      [aggregateKeyOf('order', 'o-2'), [e('o-2', 1), e('o-2', 2)]],
    ]);
    const acknowledged: string[] = [];

    const result = await sendWindow(
      { sqs: sqs as never, queueUrl: 'http://q/q', fifo: false, replayId: 'r', concurrency: 2, limiter: { take: async () => true } },
      aggregates,
      (sent) => acknowledged.push(...sent.map((x) => x.id)),
    );

    expect(acknowledged.sort()).toEqual(['o-1-1', 'o-2-1', 'o-2-2']);
    expect(result.refused.map((r) => [r.eventId, r.reason])).toEqual([
      ['o-1-2', 'InvalidMessageContents: no'],
      ['o-1-3', 'held back: earlier event o-1-2 of its aggregate was refused'],
    ]);
  });
});
