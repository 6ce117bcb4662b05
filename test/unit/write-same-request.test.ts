import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { Outbox } from '../../shared/write/index.js';
import { orderEvent, testConfig } from '../helpers/factories.js';

/** How many slots an `Outbox` remembers (shared/write/sequences.ts): one more forgets the oldest. */
const REMEMBERED_SLOTS = 10_000;
const SLOTS_PER_WRITE = 100;

const inProgress = () => Object.assign(new Error('Transaction is in progress'), { name: 'TransactionInProgressException' });

describe('write helper: a request asked about again is the same request', () => {
  it('sends the very same request under its token after an in-progress answer, though other writes meanwhile pushed its slot out of memory', async () => {
    const client = DynamoDBDocumentClient.from(
      new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }),
    );
    const outbox = new Outbox({ config: testConfig(), tableName: 'orders', client, retry: { baseDelayMs: 1, maxDelayMs: 2 } });
    // Writes of other aggregates that, while the watched write waits, make the memory forget its slot.
    const otherWrites = async () => {
      for (let write = 0; write * SLOTS_PER_WRITE <= REMEMBERED_SLOTS; write++) {
        const events = Array.from({ length: SLOTS_PER_WRITE }, (_, i) => orderEvent(`other-${write * SLOTS_PER_WRITE + i}`));
        await outbox.write({ events });
      }
    };
    const watched: string[] = [];
    client.send = (async (command: { input: unknown }) => {
      const request = JSON.stringify(command.input);
      if (!request.includes('OUTBOX#order#o-1')) return {};
      watched.push(request);
      if (watched.length === 2) {
        await otherWrites();
        throw inProgress();
      }
      return {};
    }) as typeof client.send;

    await outbox.write({ events: [orderEvent('o-1')] });
    const { events } = await outbox.write({ events: [orderEvent('o-1')] });

    expect(events[0]?.sequence).toBe(2);
    expect(watched).toHaveLength(3);
    expect(JSON.parse(watched[2] as string)).toEqual(JSON.parse(watched[1] as string));
  });
});
