/**
 * The fields each kind of `TransactWriteItems` action has. The SDK's serializer drops any other in
 * silence, so a misspelt `ConditionExpresion` would commit a `Put` without its condition.
 */

import { WriteValidationError } from '../errors.js';
import { showValue } from '../show-value.js';
import { objectHasUnknownKeys, unknownKeys } from '../unknown-keys.js';

const CONDITION = ['ConditionExpression', 'ExpressionAttributeNames', 'ExpressionAttributeValues', 'ReturnValuesOnConditionCheckFailure'];

const FIELDS: Readonly<Record<string, readonly string[]>> = {
  Put: ['Item', 'TableName', ...CONDITION],
  Update: ['Key', 'UpdateExpression', 'TableName', ...CONDITION],
  Delete: ['Key', 'TableName', ...CONDITION],
  ConditionCheck: ['Key', 'TableName', ...CONDITION],
};

/**
 * Refuses a field `body` (the action of `kind` at `operations[index]`) does not have, and an
 * expression that is no string (the SDK would send a bigint `ConditionExpression` as a number, and
 * fail on a bigint `UpdateExpression` before sending), before anything is sent.
 */
export function checkOperationFields(kind: string, body: object, index: number): void {
  const allowed = FIELDS[kind] as readonly string[];
  for (const field in body) {
    if (Object.hasOwn(body, field) && !allowed.includes(field)) {
      throw new WriteValidationError(
        'INVALID_OPERATION',
        objectHasUnknownKeys(`operations[${index}].${kind}`, unknownKeys(body, allowed), allowed),
      );
    }
  }
  const { ConditionExpression: condition, UpdateExpression: update } = body as Record<string, unknown>;
  if (typeof condition !== 'string' && condition !== undefined) {
    throw new WriteValidationError(
      'INVALID_OPERATION',
      `operations[${index}].${kind}.ConditionExpression is ${showValue(condition)}; allowed: a condition expression string, or leave it out`,
    );
  }
  if (typeof update !== 'string' && update !== undefined) {
    throw new WriteValidationError(
      'INVALID_OPERATION',
      `operations[${index}].${kind}.UpdateExpression is ${showValue(update)}; allowed: an update expression string, e.g. "SET #a = :a"`,
    );
  }
}
