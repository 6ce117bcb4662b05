/**
 * DynamoDB numbers as the write helper reads them: one spelling per number, and what DynamoDB
 * cannot store (more than 38 significant digits, or a magnitude out of its range).
 */

import { NumberValueImpl as NumberValue } from '@aws-sdk/util-dynamodb';

/** The number a DynamoDB `N` text means, spelt one way (`1`, `1.0` and `10e-1` alike), to find a set's duplicates. */
export function canonicalNumber(text: string): string {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (match === null) return text;
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  const digits = `${whole}${fraction}`.replace(/^0+/, '');
  if (digits === '') return '0';
  const significant = digits.replace(/0+$/, '');
  const scale = BigInt(exponent) - BigInt(fraction.length) + BigInt(digits.length - significant.length);
  return `${sign === '-' ? '-' : ''}${significant}e${scale}`;
}

/** What DynamoDB stores of a number: at most 38 significant digits, 1E-130 to under 1E+126 in magnitude, or 0. */
const MAX_NUMBER_DIGITS = 38;
const NUMBER_ALLOWED = `allowed: numbers of at most ${MAX_NUMBER_DIGITS} significant digits, from 1E-130 to 9.9999999999999999999999999999999999999E+125 in magnitude, or 0`;

/** How DynamoDB spells a number: a sign, digits with at most one point (`5.`, `.5`), an exponent; no spaces. */
const NUMBER_SYNTAX = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const NUMBER_SYNTAX_ALLOWED =
  'allowed: an optional sign, digits with at most one decimal point, and an optional exponent (42, -0.5, .5, 1.5E+10), without spaces';

/**
 * Why DynamoDB cannot read or store the number `text` (not a number's spelling, more than 38
 * significant digits, or a magnitude out of its range), as a predicate; `undefined` when it can,
 * or when `text` holds other than ASCII (digits of other scripts are DynamoDB's to judge).
 */
function numberProblem(text: string): string | undefined {
  if (!NUMBER_SYNTAX.test(text)) {
    if (/[\u0080-\uffff]/.test(text)) return undefined;
    const shown = JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
    return `the number ${shown}, which DynamoDB cannot read as a number; ${NUMBER_SYNTAX_ALLOWED}`;
  }
  // Without an exponent, 38 characters hold at most 38 digits, of a magnitude within range.
  if (text.length <= MAX_NUMBER_DIGITS && !text.includes('e') && !text.includes('E')) return undefined;
  const match = /^-?(\d+)e(-?\d+)$/.exec(canonicalNumber(text));
  if (match === null) return undefined;
  const [, digits = '', scale = '0'] = match;
  // The value is 0.d₁d₂… × 10^point: DynamoDB's range is 10^-130 ≤ |value| < 10^126.
  const point = digits.length + Number(scale);
  const shown = text.length > 60 ? `${text.slice(0, 60)}…` : text;
  const why =
    digits.length > MAX_NUMBER_DIGITS
      ? `has ${digits.length} significant digits`
      : point > 126
        ? 'is 1E+126 or more in magnitude'
        : point < -129
          ? 'is less than 1E-130 in magnitude'
          : undefined;
  return why === undefined ? undefined : `the number ${shown}, which DynamoDB cannot store: it ${why}; ${NUMBER_ALLOWED}`;
}

/** {@link numberProblem} of a number the DocumentClient marshals as `N`; a double in range is passed at once. */
export function numericProblem(value: number | bigint | NumberValue): string | undefined {
  if (typeof value === 'number') {
    const magnitude = Math.abs(value);
    // A double prints at most 17 significant digits; NaN and the infinities are the marshaller's to refuse.
    if (magnitude === 0 || !Number.isFinite(magnitude) || (magnitude >= 1e-130 && magnitude < 1e126)) return undefined;
  }
  return numberProblem(String(value));
}

export const isNumeric = (value: unknown): value is number | bigint | NumberValue =>
  typeof value === 'number' || typeof value === 'bigint' || value instanceof NumberValue;
