import { describe, expect, it } from 'vitest';
import { trimmedReason } from '../../shared/redrive/kept-records.js';

const TRIMMED = 'sequence numbers 10 to just before 30 of shard s were trimmed from the stream (…) and the record has no payload';

describe('trimmedReason: what went out of a record whose first records the stream trimmed', () => {
  it('says every event was republished when all were, in a dry run that they would be', () => {
    expect(trimmedReason(TRIMMED, { events: 2, published: 2, deadLettered: 0, letters: 0 }, false)).toBe(
      `${TRIMMED}; the 2 events of its records still there were republished`,
    );
    expect(trimmedReason(TRIMMED, { events: 1, published: 1, deadLettered: 0, letters: 0 }, true)).toBe(
      `${TRIMMED}; the 1 event of its records still there would be republished`,
    );
  });

  it('tells the published, dead-lettered and failed events apart, and the dead letters of its records', () => {
    expect(
      trimmedReason(TRIMMED, { events: 6, published: 3, deadLettered: 2, letters: 1, problem: '1 of 6 events failed, first k: x' }, false),
    ).toBe(
      `1 of 6 events failed, first k: x; ${TRIMMED}; of the 6 events of its records still there, 3 were republished, 2 dead-lettered to the relay DLQ (SNS refused them for good) and 1 failed; 1 dead letter of its records (malformed slots, unrouted events) was sent to the relay DLQ`,
    );
    expect(trimmedReason(TRIMMED, { events: 2, published: 2, deadLettered: 0, letters: 2 }, true)).toBe(
      `${TRIMMED}; the 2 events of its records still there would be republished; 2 dead letters of its records (malformed slots, unrouted events) would be sent to the relay DLQ`,
    );
  });
});
