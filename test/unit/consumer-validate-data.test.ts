import type { StandardSchemaV1 } from '@standard-schema/spec';
import { describe, expect, it } from 'vitest';
import { validateData } from '../../shared/consumer/validate-data.js';
import type { OutboxEnvelope } from '../../shared/envelope.js';

const envelope = { id: 'e-1', type: 'order.placed', data: { total: 'ten' } } as unknown as OutboxEnvelope;

/** A schema that reports `count` issues, one per field `f1`, `f2`, …. */
const failingWith = (count: number): StandardSchemaV1 => ({
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: () => ({ issues: Array.from({ length: count }, (_, i) => ({ message: `bad ${i + 1}`, path: [`f${i + 1}`] })) }),
  },
});

const reasonFor = async (schema: StandardSchemaV1): Promise<string> => {
  const result = await validateData(schema, envelope, 'm-1');
  if (result.ok || result.outcome.status !== 'rejected') throw new Error('the data passed');
  expect(result.outcome.error.code).toBe('SCHEMA_VALIDATION_FAILED');
  return result.outcome.error.message;
};

describe('SCHEMA_VALIDATION_FAILED', () => {
  it('lists the first 5 issues and says how many more there were', async () => {
    const reason = await reasonFor(failingWith(12));

    expect(reason).toContain('failed its schema: f1: bad 1; f2: bad 2; f3: bad 3; f4: bad 4; f5: bad 5; … and 7 more; got ');
    expect(reason).not.toContain('bad 6');
  });

  it('lists every issue, with no count of more, when there are at most 5', async () => {
    expect(await reasonFor(failingWith(5))).toContain('f5: bad 5; got ');
    expect(await reasonFor(failingWith(1))).toContain('failed its schema: f1: bad 1; got ');
  });
});
