/** Checks the option modules share: what a value is, and whether it is a record, a known key, a number in range. */

import { showValue as show } from '../show-value.js';
import { unknownKeysDetail } from '../unknown-keys.js';
import { ConsumerOptionsError } from './errors.js';

/** What a value is, for values that do not print well (clients, schemas): its class, else {@link show}. */
export const shapeOf = (value: unknown): string =>
  typeof value === 'object' && value !== null ? `an instance of ${value.constructor?.name || 'Object'}` : show(value);
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function rejectUnknown(value: Record<string, unknown>, allowed: readonly string[], field: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw new ConsumerOptionsError(`${field}.${key}`, unknownKeysDetail([key], allowed));
  }
}

export function positiveInteger(value: unknown, field: string): void {
  if (value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value < 1)) {
    throw new ConsumerOptionsError(field, `got ${show(value)}; allowed: a positive whole number`);
  }
}

export function wholeNumberIn(
  value: unknown,
  field: string,
  min: number,
  max: number,
  allowed = `a whole number from ${min} to ${max}`,
): void {
  if (value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)) {
    throw new ConsumerOptionsError(field, `got ${show(value)}; allowed: ${allowed}`);
  }
}
