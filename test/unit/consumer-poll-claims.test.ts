import { describe, expect, it } from 'vitest';
import { claimsLapseAt, HAND_OUT_MARGIN_MS } from '../../shared/consumer/sqs-poller.js';

const base = Date.parse('2026-06-01T12:00:00.000Z');

describe('claimsLapseAt: the claims of a batch received by pollOnce or createPoller', () => {
  it('never outlast the visibility timeout, and are cut by less than 2 s, for any hand-out within the margin of the answer', () => {
    for (const [sentAt, answeredAt] of [
      [base + 900, base + 1_200], // a quick receive across a second
      [base, base + 15_500], // a long poll that waited 15 s
      [base + 999, base + 4_001], // a receive the SDK retried
    ] as const) {
      const lapse = claimsLapseAt(sentAt, answeredAt, 30) * 1000;
      for (let handOut = Math.max(sentAt, answeredAt - HAND_OUT_MARGIN_MS); handOut <= answeredAt; handOut += 7) {
        expect(lapse).toBeLessThanOrEqual(handOut + 30_000);
        expect(lapse).toBeGreaterThan(handOut + 30_000 - 2_000);
      }
    }
  });

  it('count from the moment the receive was sent when the answer came within the margin', () => {
    expect(claimsLapseAt(base + 900, base + 1_200, 30)).toBe(base / 1000 + 30);
  });

  it("do not lose a long poll's wait: they count from the answer less the margin", () => {
    expect(claimsLapseAt(base, base + 15_500, 30)).toBe(base / 1000 + 14 + 30);
  });
});
