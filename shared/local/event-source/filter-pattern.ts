import { OutboxError } from '../../errors.js';

/** A filter pattern uses an operator the local matcher does not implement. */
export class FilterPatternError extends OutboxError {
  constructor(message: string) {
    super('UNSUPPORTED_FILTER_PATTERN', message);
    this.name = 'FilterPatternError';
  }
}

const SUPPORTED = 'exact values (string, number, boolean, null), { prefix }, { "anything-but" } and { exists }';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Whether a value is a leaf of the record. Like EventBridge's content filtering, the mapping's
 * rules match leaves only: in DynamoDB JSON `{ "S": "order" }` is an intermediate node, so
 * `{ exists: true }` on it never matches, `{ exists: false }` always does, and neither does
 * `"anything-but"` match it.
 */
const isLeaf = (value: unknown): boolean => value === null || typeof value !== 'object';

/** Whether one field's value matches; `present` says whether the field is there at all. */
type FieldTest = (present: boolean, value: unknown) => boolean;

/** Whether a record (or a nested object of it) matches. */
export type RecordTest = (record: unknown) => boolean;

function compileRule(rule: unknown, path: string): FieldTest {
  if (!isObject(rule)) return (present, value) => present && value === rule;
  const keys = Object.keys(rule);
  if (keys.length !== 1)
    throw new FilterPatternError(`Filter rule at ${path} has keys ${JSON.stringify(keys)}; allowed: one of ${SUPPORTED}`);
  const [operator] = keys as [string];
  const operand = rule[operator];
  switch (operator) {
    case 'prefix': {
      if (typeof operand !== 'string')
        throw new FilterPatternError(`"prefix" at ${path} got ${JSON.stringify(operand)}; allowed: a string`);
      return (present, value) => present && typeof value === 'string' && value.startsWith(operand);
    }
    case 'anything-but': {
      const excluded: unknown[] = Array.isArray(operand) ? operand : [operand];
      if (excluded.some(isObject)) {
        throw new FilterPatternError(`"anything-but" at ${path} got ${JSON.stringify(operand)}; allowed: a value or a list of values`);
      }
      return (present, value) => present && isLeaf(value) && !excluded.includes(value);
    }
    case 'exists':
      return (present, value) => operand === (present && isLeaf(value));
    default:
      throw new FilterPatternError(`Filter rule at ${path} uses ${JSON.stringify(operator)}; allowed: ${SUPPORTED}`);
  }
}

/** A field matches when any of its rules matches its value, or any element of a list value. */
function compileField(rules: unknown, path: string): FieldTest {
  if (isObject(rules)) {
    const nested = compileObject(rules, path);
    return (present, value) => present && nested(value);
  }
  if (!Array.isArray(rules)) {
    throw new FilterPatternError(`Filter pattern at ${path} got ${JSON.stringify(rules)}; allowed: a list of rules or a nested object`);
  }
  const tests = rules.map((rule) => compileRule(rule, path));
  const anyRule = (present: boolean, value: unknown): boolean => {
    for (const test of tests) if (test(present, value)) return true;
    return false;
  };
  return (present, value) => {
    if (!Array.isArray(value)) return anyRule(present, value);
    for (const candidate of value) if (anyRule(present, candidate)) return true;
    return false;
  };
}

/** An object matches when every field of the pattern does. */
function compileObject(pattern: Record<string, unknown>, path: string): RecordTest {
  const fields = Object.entries(pattern).map(([key, rules]) => ({ key, test: compileField(rules, `${path}.${key}`) }));
  return (value) => {
    if (!isObject(value)) return false;
    for (const { key, test } of fields) if (!test(Object.hasOwn(value, key), value[key])) return false;
    return true;
  };
}

/**
 * Filter criteria made of these patterns as one test, the way the event source mapping
 * evaluates them: a record passes when any pattern matches (none means all pass); a pattern
 * matches when every field of it does, and a field when any of its rules does. Every pattern is
 * checked here, once, so the test itself builds nothing per record. Implements the subset the
 * relay uses; any other operator is refused with a {@link FilterPatternError} instead of
 * matching wrongly.
 *
 * @example
 * ```ts
 * const passes = compileFilters([{ eventName: ['INSERT', 'MODIFY'] }]);
 * records.filter(passes);
 * ```
 */
export function compileFilters(patterns: readonly Record<string, unknown>[]): RecordTest {
  if (patterns.length === 0) return () => true;
  const tests = patterns.map((pattern) => compileObject(pattern, '$'));
  return (record) => {
    for (const test of tests) if (test(record)) return true;
    return false;
  };
}
