import { fc, test } from '@fast-check/vitest';
import { CloudEvent } from 'cloudevents';
import { describe, expect } from 'vitest';
import { CLOUDEVENTS_INTEGER_MAX } from '../../shared/envelope.js';
import { FakeSns } from '../helpers/fake-sns.js';
import { relayWith } from '../helpers/relay-fixtures.js';
import { slotRecord } from '../helpers/stream-records.js';

describe('envelopes the relay publishes', () => {
  test.prop(
    [fc.constantFrom('order', 'payment'), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: CLOUDEVENTS_INTEGER_MAX - 5 })],
    {
      numRuns: 50,
    },
  )(
    'are CloudEvents the SDK validates strictly, with the position an Integer in aggregatesequence and no sequence',
    async (type, events, before) => {
      const sns = new FakeSns();
      const result = await relayWith(sns).relay([slotRecord({ type, id: 'x-1', events, seq: before + events })]);
      expect(result.published).toBe(events);
      const entries = sns.requests.flatMap((r) => r.entries);
      expect(entries).toHaveLength(events);
      for (const [i, entry] of entries.entries()) {
        const event = new CloudEvent<unknown>(JSON.parse(entry.Message!), true);
        expect(event.aggregatesequence).toBe(before + 1 + i);
        // The spec's Integer type: whole and within a signed 32-bit range.
        expect(Number.isInteger(event.aggregatesequence)).toBe(true);
        expect(event.aggregatesequence as number).toBeLessThanOrEqual(CLOUDEVENTS_INTEGER_MAX);
        expect(event).not.toHaveProperty('sequence');
        // Subscriptions filter on these two; SNS to SQS raw delivery keeps at most ten.
        expect(Object.keys(entry.MessageAttributes ?? {})).toEqual(['type', 'aggregatetype']);
      }
    },
  );
});
