/**
 * Words that follow a count in a message: a noun in the plural but for 1, and its verb.
 *
 * @example
 * ```ts
 * counted(1, 'event'); // '1 event'
 * counted(3, 'character'); // '3 characters'
 * wasOrWere(0); // 'were'
 * ```
 */

/** `1 event`, `2 events`, `0 events`: a count of `one`, its noun with an `s` but for 1. */
export const counted = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

/** The verb a count of `n` takes: `was` for 1, `were` for any other. */
export const wasOrWere = (n: number): string => (n === 1 ? 'was' : 'were');
