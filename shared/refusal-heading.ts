/**
 * The headings of the typed options errors (redrive's, replay's, the catalog's), which say both
 * what a library call and what a command line was given wrong: below the command lines, which
 * only pass them their words.
 */

/**
 * The heading of a refusal of the command line that is no option's, by its field: an option the
 * command does not know (`option`), a word after the options that it does not take (`argument`),
 * or anything else wrong with the command line (`line`).
 */
const COMMAND_LINE_HEADINGS: Readonly<Record<string, (command: string) => string>> = {
  option: (command) => `Unknown ${command} option`,
  argument: (command) => `Unexpected ${command} argument`,
  line: (command) => `Invalid ${command} command line`,
};

/**
 * The heading of a refusal of `command` on `field`: a field of `more` (the command's own words
 * before its options) or of {@link COMMAND_LINE_HEADINGS} in their words, any other field as the
 * option it is (`Invalid redrive option --max`, `Invalid redrive option maxMessages`).
 */
export function refusalHeading(command: string, field: string, more: Readonly<Record<string, (command: string) => string>> = {}): string {
  const words = Object.hasOwn(more, field)
    ? more[field]
    : Object.hasOwn(COMMAND_LINE_HEADINGS, field)
      ? COMMAND_LINE_HEADINGS[field]
      : undefined;
  return words?.(command) ?? `Invalid ${command} option ${field}`;
}
