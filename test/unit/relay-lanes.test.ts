import { describe, expect, it } from 'vitest';
import type { SlotMessage } from '../../shared/envelope.js';
import { Lanes } from '../../shared/relay/lanes.js';

const message = (aggregateId: string, sequence: number): SlotMessage => ({
  id: `${aggregateId}-${sequence}`,
  type: 'order.changed',
  aggregateType: 'order',
  aggregateId,
  sequence,
  body: '{}',
});

const heads = (lanes: Lanes, now = 0) =>
  [...lanes.ready(now)].map((lane) => {
    const head = lane.items[0]!;
    return head.kind === 'event' ? head.message.id : `malformed-${head.recordIndex}`;
  });

describe('relay lanes', () => {
  it('offers each aggregate’s head only, in the order the aggregates first came, and skips finished, busy and failed lanes', () => {
    const lanes = new Lanes();
    for (const [index, id] of ['a', 'b', 'a', 'c', 'd'].entries()) lanes.add(index, [message(id, index)], undefined);
    expect(heads(lanes)).toEqual(['a-0', 'b-1', 'c-3', 'd-4']);

    const [a, b, c, d] = [...lanes.ready(0)];
    a!.items.shift(); // a's first event went out; its second is next
    b!.items.shift(); // b is finished
    c!.busy = true; // c's head is in flight
    d!.failed = true; // d failed: nothing more of it goes out
    expect(heads(lanes)).toEqual(['a-2']);
    expect(lanes.pending()).toBe(true);

    a!.items.shift();
    expect(heads(lanes)).toEqual([]);
    expect(lanes.pending()).toBe(true); // c is still in flight with its head
    c!.items.shift();
    c!.busy = false;
    expect(lanes.pending()).toBe(false);
    expect(lanes.nextReadyAt()).toBeUndefined();
  });

  it('holds a lane in backoff until its time, and says when that is', () => {
    const lanes = new Lanes();
    lanes.add(0, [message('a', 1)], undefined);
    lanes.add(1, [message('b', 1)], undefined);
    const [a] = [...lanes.ready(0)];
    a!.readyAt = 5_000;
    expect(heads(lanes, 1_000)).toEqual(['b-1']);
    expect(lanes.nextReadyAt()).toBe(0);
    const [b] = [...lanes.ready(1_000)];
    b!.items.shift();
    expect(lanes.nextReadyAt()).toBe(5_000);
    expect(heads(lanes, 5_000)).toEqual(['a-1']);
  });
});
