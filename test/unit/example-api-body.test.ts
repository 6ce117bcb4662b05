import { fc, it } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { errorResponse } from '../../examples/orders/api/orders-api.js';
import { amountField, objectBody } from '../../examples/orders/api/request-body.js';
import { TransactionConflictError, WriteOutcomeUnknownError, WriteRejectedError } from '../../shared/errors.js';

describe('example API amounts', () => {
  it.prop([fc.integer({ min: 1, max: 100_000_000_000 })])('accepts every amount of whole cents up to one billion', (cents) => {
    const total = cents / 100;
    expect(amountField({ total }, 'total')).toBe(total);
  });

  it.each([19.99, 0.29, 1.13, 4.35, 999_999_999.99])('accepts %s, whose hundredfold is not a whole number in binary', (total) => {
    expect(amountField({ total }, 'total')).toBe(total);
  });

  it.prop([fc.integer({ min: 0, max: 99_999_999 }), fc.integer({ min: 1, max: 9 })])(
    'rejects an amount with a third decimal',
    (cents, thousandth) => {
      const total = (cents * 10 + thousandth) / 1000;
      expect(() => amountField({ total }, 'total')).toThrow(
        `total is ${total}; allowed: a number above 0 and up to 1000000000, with at most two decimals`,
      );
    },
  );
});

describe('example API amounts out of range', () => {
  it('shows a number JSON.parse read as Infinity (1e400) as what it became, not as null', () => {
    expect(() => amountField(JSON.parse('{"total":1e400}') as Record<string, unknown>, 'total')).toThrow(
      'total is Infinity (a number beyond what JSON numbers hold here); allowed: a number above 0',
    );
  });
});

describe('example API bodies', () => {
  it('rejects a field on a route that takes no body, saying that no body is allowed', () => {
    expect(() => objectBody({ x: 1 }, [])).toThrow('field "x" is not accepted; allowed: no body, or an empty JSON object');
  });

  it('rejects a body that is not an object, naming the fields allowed', () => {
    expect(() => objectBody([], ['reason'])).toThrow('the body is []; allowed: a JSON object with reason');
  });
});

describe('example API error answers', () => {
  it('answers 503 when a write may yet commit, so the client retries with its key, and 409 when it met the data', () => {
    expect(errorResponse(new WriteOutcomeUnknownError(16, 15_000, 'k-1'))).toMatchObject({
      status: 503,
      body: { error: { code: 'WRITE_OUTCOME_UNKNOWN', message: expect.stringContaining('Retry it with the same idempotencyKey ("k-1")') } },
    });
    expect(errorResponse(new TransactionConflictError(10, 'TransactionConflict'))).toMatchObject({
      status: 409,
      body: { error: { code: 'TRANSACTION_CONFLICT' } },
    });
  });

  it("answers 500 when DynamoDB refused the write for the service's own setup, which the client cannot change", () => {
    const refused = new WriteRejectedError('AccessDeniedException', 'nothing was written: the role may not write the table');
    expect(errorResponse(refused)).toMatchObject({ status: 500, body: { error: { code: 'WRITE_REJECTED' } } });
    expect(JSON.stringify(errorResponse(refused).body)).not.toContain('role');
  });
});
