/**
 * S3's rule for the characters and length of a general purpose bucket's name: 3–63 lower-case
 * letters, digits, `.` and `-`, starting and ending with a letter or digit. One pattern for every
 * bucket a part is given (the archive, the processor's failed batches, redrive's and replay's
 * `--bucket`); a part may refuse more (the archiver: `..`, IP addresses, reserved affixes).
 *
 * @example
 * ```ts
 * S3_BUCKET_NAME.test('outbox-archive'); // true
 * S3_BUCKET_NAME.test('Outbox_Archive'); // false
 * ```
 */
export const S3_BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
