/**
 * DynamoDB's rule for the name of a table, checked where the name is given: DynamoDB refuses any
 * other name anyway, but only at the first request, so a typo would fail every write instead of
 * the helper's, the consumer's or the stack's creation.
 */

/** A table's name as DynamoDB takes it: 3–255 letters, digits, `_`, `.` and `-`. */
const NAME = '[A-Za-z0-9_.-]{3,255}';

/** A DynamoDB table name, the name alone (a table to create, a lease table named in the environment). */
export const DYNAMODB_TABLE_NAME_ONLY_PATTERN = new RegExp(`^${NAME}$`);

/** A DynamoDB table name, or a table's ARN (which a request's `TableName` also takes). */
export const DYNAMODB_TABLE_NAME_PATTERN = new RegExp(`^(?:arn:[^:\\s]+:dynamodb:[^:\\s]*:[^:\\s]*:table/)?${NAME}$`);

/** The rule as errors state it after "allowed: the … table's name". */
export const DYNAMODB_TABLE_NAME_RULE = '(3–255 of A–Z a–z 0–9 _ . -) or its ARN';
