import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { laneIndex } from '../../shared/local/event-source/batch-lanes.js';

const record = (pk: string, sequence: string): DynamoDBRecord => ({
  eventName: 'MODIFY',
  dynamodb: { Keys: { pk: { S: pk }, sk: { S: 'OUTBOX' } }, SequenceNumber: sequence, NewImage: { pk: { S: pk }, seq: { N: sequence } } },
});

describe('laneIndex (parallelization factor lanes)', () => {
  it('puts every record of an item in the same lane, whatever else the record holds', () => {
    for (let i = 0; i < 200; i++) {
      const pk = `OUTBOX#order#${i}`;
      expect(laneIndex(record(pk, '100'), 7)).toBe(laneIndex(record(pk, '999'), 7));
    }
  });

  it('spreads items over the lanes', () => {
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) counts[laneIndex(record(`OUTBOX#order#${i}`, '1'), 4)]!++;
    for (const count of counts) expect(count).toBeGreaterThan(800);
  });

  it('has one lane when the factor is 1', () => {
    expect(laneIndex(record('OUTBOX#order#1', '1'), 1)).toBe(0);
  });
});
