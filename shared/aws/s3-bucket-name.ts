/**
 * S3's rules for a general purpose bucket's name, as one function every bucket check uses (the
 * archive, the processor's failed batches, redrive's and replay's `--bucket`): S3 refuses these
 * names anyway, so a name that breaks one is refused before anything is read or written.
 */

import { counted } from '../plural.js';

/** The reserved prefixes S3 refuses at the start of a general purpose bucket's name. */
const RESERVED_PREFIXES = ['xn--', 'sthree-', 'amzn-s3-demo-'] as const;
/** The reserved suffixes (access point and Object Lambda aliases, Multi-Region Access Points, directory and table buckets). */
const RESERVED_SUFFIXES = ['-s3alias', '--ol-s3', '.mrap', '--x-s3', '--table-s3'] as const;

const IP_ADDRESS = /^\d+\.\d+\.\d+\.\d+$/;
const quoted = (affix: string): string => `'${affix}'`;
const listed = (affixes: readonly string[]): string => `${affixes.slice(0, -1).map(quoted).join(', ')} or ${quoted(affixes.at(-1) ?? '')}`;

/** The rule as errors state it after "allowed: an S3 bucket name". */
export const S3_BUCKET_NAME_RULE =
  "3–63 lower-case letters, digits, '.' and '-', starting and ending with a letter or digit, no '..', not an IP address, " +
  `not starting with ${listed(RESERVED_PREFIXES)} nor ending in ${listed(RESERVED_SUFFIXES)}`;

/**
 * What is wrong with `name` as an S3 general purpose bucket name, worded to follow "which" in an
 * error; `undefined` when S3 allows it.
 *
 * @example
 * ```ts
 * s3BucketNameProblem('outbox-archive'); // undefined
 * s3BucketNameProblem('xn--archive'); // "starts with the reserved prefix 'xn--'"
 * ```
 */
export function s3BucketNameProblem(name: string): string | undefined {
  if (name.length < 3 || name.length > 63) return `has ${counted(name.length, 'character')}, not 3 to 63`;
  if (!/^[a-z0-9.-]*$/.test(name)) return "holds a character other than a lower-case letter, a digit, '.' or '-'";
  if (!/^[a-z0-9].*[a-z0-9]$/.test(name)) return 'does not start and end with a letter or digit';
  if (name.includes('..')) return "holds '..'";
  if (IP_ADDRESS.test(name)) return 'is shaped like an IP address';
  const prefix = RESERVED_PREFIXES.find((reserved) => name.startsWith(reserved));
  if (prefix !== undefined) return `starts with the reserved prefix ${quoted(prefix)}`;
  const suffix = RESERVED_SUFFIXES.find((reserved) => name.endsWith(reserved));
  if (suffix !== undefined) return `ends in the reserved suffix ${quoted(suffix)}`;
  return undefined;
}
