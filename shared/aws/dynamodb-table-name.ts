/**
 * DynamoDB's rule for the name of a table the package writes to (the outbox table, a consumer's
 * inbox table), checked where the name is given: DynamoDB refuses any other name anyway, but only
 * at the first request, so a typo would fail every write instead of the helper or consumer's creation.
 */

/** A DynamoDB table name, or a table's ARN (which a request's `TableName` also takes). */
export const DYNAMODB_TABLE_NAME_PATTERN = /^(?:arn:[^:\s]+:dynamodb:[^:\s]*:[^:\s]*:table\/)?[A-Za-z0-9_.-]{3,255}$/;

/** The rule as errors state it after "allowed: the … table's name". */
export const DYNAMODB_TABLE_NAME_RULE = '(3–255 of A–Z a–z 0–9 _ . -) or its ARN';
