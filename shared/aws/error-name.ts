/**
 * The name of an error an AWS SDK client threw, read one way wherever the package decides by it:
 * the SDK names a service's error by its exception (`ThrottlingException`), and a client's own
 * failure by its class (`CredentialsProviderError`), but a rejection can be any value at all.
 */

/**
 * The error's `name` as the SDK gives it (`ThrottlingException`), or `Error` for a value with no
 * name of its own (`null`, a string, an object without a non-empty string `name`).
 *
 * @example
 * ```ts
 * if (errorName(error) === 'ValidationException') throw new InboxWriteError(…);
 * ```
 */
export function errorName(error: unknown): string {
  const name = typeof error === 'object' && error !== null ? (error as { readonly name?: unknown }).name : undefined;
  return typeof name === 'string' && name !== '' ? name : 'Error';
}
