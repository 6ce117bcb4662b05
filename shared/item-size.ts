import type { AttributeValue } from '@aws-sdk/client-dynamodb';

/**
 * Size of a DynamoDB item as DynamoDB counts it against the 400 KB item and 4 MB transaction
 * limits: attribute names plus values, with 3 bytes per list or map, 1 byte per element, and
 * numbers at one byte per pair of significant digits, plus one (two when negative).
 */
export function itemSize(item: Record<string, AttributeValue>): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) size += Buffer.byteLength(name) + valueSize(value);
  return size;
}

/**
 * A number's size as DynamoDB counts it: its significant digits stored in pairs aligned on the
 * decimal point (`11000` is `01|10|00`, 3 pairs less the trailing zero pair: 2, plus 1), one
 * byte more, and one more for a negative number. Zero counts 2 (one digit), a byte above what
 * DynamoDB Local counts, so the count never falls short.
 */
function numberSize(text: string): number {
  const match = NUMBER.exec(text);
  if (match === null) return text.length;
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  const all = whole + fraction;
  let first = 0;
  while (first < all.length && all.charCodeAt(first) === ZERO) first++;
  let end = all.length;
  while (end > first && all.charCodeAt(end - 1) === ZERO) end--;
  if (end === first) return 2;
  // Digits before the decimal point, counted from the first significant one: odd means its pair starts with a 0.
  const point = whole.length + Number(exponent) - first;
  const pairs = Math.ceil((end - first + (point % 2 !== 0 ? 1 : 0)) / 2);
  return pairs + 1 + (sign === '-' ? 1 : 0);
}

const NUMBER = /^(-?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;
const ZERO = 48;

export function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) return numberSize(value.N);
  if (value.B !== undefined) return value.B.byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS !== undefined) return value.SS.reduce((sum, s) => sum + Buffer.byteLength(s), 0);
  if (value.NS !== undefined) return value.NS.reduce((sum, n) => sum + numberSize(n), 0);
  if (value.BS !== undefined) return value.BS.reduce((sum, b) => sum + b.byteLength, 0);
  if (value.L !== undefined) return 3 + value.L.reduce((sum, v) => sum + 1 + valueSize(v), 0);
  if (value.M !== undefined) {
    return 3 + Object.entries(value.M).reduce((sum, [k, v]) => sum + 1 + Buffer.byteLength(k) + valueSize(v), 0);
  }
  return 0;
}
