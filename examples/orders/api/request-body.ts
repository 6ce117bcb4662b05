import { ApiError } from './api-types.js';

const show = (value: unknown): string => {
  if (value === undefined) return 'nothing';
  // JSON.parse reads 1e400 as Infinity, which JSON.stringify would print as null.
  if (typeof value === 'number' && !Number.isFinite(value)) return `${value} (a number beyond what JSON numbers hold here)`;
  return (JSON.stringify(value) ?? String(value)).slice(0, 100);
};

/** The body as an object with only the allowed fields; a missing body counts as `{}`. */
export function objectBody(body: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (body === undefined) return {};
  const fields = allowed.length === 0 ? 'no body, or an empty JSON object' : `a JSON object with ${allowed.join(', ')}`;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError(400, 'INVALID_BODY', `the body is ${show(body)}; allowed: ${fields}`);
  }
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) {
      throw new ApiError(400, 'UNKNOWN_FIELD', `field ${JSON.stringify(key)} is not accepted; allowed: ${fields}`, key);
    }
  }
  return body as Record<string, unknown>;
}

/** A positive amount with at most two decimals, up to one billion. */
export function amountField(body: Record<string, unknown>, field: string): number {
  const value = body[field];
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > 1e9 || !hasAtMostTwoDecimals(value)) {
    throw new ApiError(
      400,
      'INVALID_FIELD',
      `${field} is ${show(value)}; allowed: a number above 0 and up to 1000000000, with at most two decimals`,
      field,
    );
  }
  return value;
}

/**
 * Whether `value` is the number a decimal with at most two places reads as. Multiplying by 100
 * is not exact in binary floating point (19.99 × 100 is 1998.9999999999998); rounding to two
 * places and reading that back is.
 */
function hasAtMostTwoDecimals(value: number): boolean {
  return Number(value.toFixed(2)) === value;
}

/** A string matching `pattern`, or `fallback` when absent. */
export function stringField(body: Record<string, unknown>, field: string, pattern: RegExp, allowed: string, fallback?: string): string {
  const value = body[field];
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'string' || !pattern.test(value)) {
    throw new ApiError(400, 'INVALID_FIELD', `${field} is ${show(value)}; allowed: ${allowed}`, field);
  }
  return value;
}
