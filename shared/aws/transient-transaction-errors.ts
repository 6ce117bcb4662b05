/**
 * Which failures of a `TransactWriteItems` a later attempt of the same transaction can get past,
 * as DynamoDB's API reference documents them; nothing of the transaction was written in either
 * case. The write helper and the consumer's inbox read them from here, so both retry the same ones.
 */

/**
 * The codes of `TransactionCanceledException.CancellationReasons` that a retry can get past: a
 * conflict with another transaction on the item, and throttling (provisioned capacity exceeded, or
 * an on-demand table or index still scaling). The other documented codes (`ConditionalCheckFailed`,
 * `ItemCollectionSizeLimitExceeded`, `ValidationError`) fail the same way again, and `None` marks
 * an action that did not fail. The account's request limit is not a cancellation reason: DynamoDB
 * reports it for the whole request, as {@link TRANSIENT_REQUEST_ERRORS}' `RequestLimitExceeded`.
 */
export const TRANSIENT_CANCELLATION_REASONS: ReadonlySet<string> = new Set([
  'TransactionConflict',
  'ProvisionedThroughputExceeded',
  'ThrottlingError',
]);

/**
 * The errors of a whole `TransactWriteItems` request (their `name`) that a later attempt can get
 * past once the SDK's own few retries are spent: throttling of the table or index, and the
 * account's request limit.
 */
export const TRANSIENT_REQUEST_ERRORS: ReadonlySet<string> = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
]);
