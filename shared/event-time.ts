/**
 * RFC 3339 `date-time`, what CloudEvents requires of `time`: a full date, a time with seconds,
 * an optional fraction, and `Z` or a numeric offset (`T` and `Z` in either case).
 */
const RFC_3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;
const isLeap = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const daysIn = (year: number, month: number): number => (month === 2 && isLeap(year) ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0));

/**
 * The instant (epoch milliseconds) of an envelope's `time`, or `undefined` when it is not an RFC
 * 3339 date-time on a real calendar date. Stricter than `Date.parse`, which takes `"5"` as a
 * year, reads a time without an offset in the machine's own zone, and rolls 2026-02-30 over to
 * March. A leap second (`:60`) is the instant after `:59`.
 *
 * @example
 * ```ts
 * parseEventTime('2026-03-01T10:15:00.000+01:00'); // 1772356500000 (09:15 UTC)
 * parseEventTime('2026-03-01T10:15:00'); // undefined: no offset
 * ```
 */
export function parseEventTime(text: string): number | undefined {
  const match = RFC_3339.exec(text);
  if (match === null) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const [, , , , , , , fraction, , sign, offsetHours, offsetMinutes] = match;
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const offset = sign === undefined ? 0 : Number(offsetHours) * 60 + Number(offsetMinutes);
  if (sign !== undefined && (Number(offsetHours) > 23 || Number(offsetMinutes) > 59)) return undefined;
  // Date.UTC reads the years 0–99 as 1900–1999; setUTCFullYear does not.
  const at = new Date(0);
  at.setUTCFullYear(year, month - 1, day);
  at.setUTCHours(hour, minute, 0, Number((fraction ?? '').padEnd(3, '0').slice(0, 3)));
  return at.getTime() + second * 1000 - (sign === '-' ? -offset : offset) * 60_000;
}

/** What {@link parseInstantText} reads, in the words of a refusal's "allowed". */
export const INSTANT_FORMS = 'a UTC date (2026-03-01, its midnight) or an ISO 8601 time with Z or an offset (2026-03-01T10:30:00Z)';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The instant (epoch milliseconds) an operator names, or `undefined` when the text is none:
 * `YYYY-MM-DD` is that day's UTC midnight; a date-time must say its zone (`Z` or an offset),
 * since a local time would depend on the operator's machine, and may leave out the seconds.
 * Spaces around the text are ignored; the rest is read as {@link parseEventTime} reads it
 * (a real calendar day, hours 00–23, a leap second as the instant after `:59`).
 *
 * @example
 * ```ts
 * parseInstantText('2026-03-01'); // 1772323200000 (2026-03-01T00:00:00.000Z)
 * parseInstantText('2026-03-01T10:30+02:00'); // 1772353800000 (08:30 UTC)
 * ```
 */
export function parseInstantText(text: string): number | undefined {
  const trimmed = text.trim();
  if (DATE_ONLY.test(trimmed)) return parseEventTime(`${trimmed}T00:00:00Z`);
  if (DATE_TIME.test(trimmed)) return parseEventTime(trimmed.replace(/T(\d{2}:\d{2})(?=Z|[+-])/, 'T$1:00'));
  return undefined;
}
