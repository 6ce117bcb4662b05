import { OutboxError } from '../errors.js';

/** A filter pattern uses an operator the local matcher does not implement. */
export class FilterPatternError extends OutboxError {
  constructor(message: string) {
    super('UNSUPPORTED_FILTER_PATTERN', message);
    this.name = 'FilterPatternError';
  }
}

const SUPPORTED = 'exact values (string, number, boolean, null), { prefix }, { "anything-but" } and { exists }';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function matchesRule(rule: unknown, present: boolean, value: unknown, path: string): boolean {
  if (!isObject(rule)) return present && value === rule;
  const keys = Object.keys(rule);
  if (keys.length !== 1)
    throw new FilterPatternError(`Filter rule at ${path} has keys ${JSON.stringify(keys)}; allowed: one of ${SUPPORTED}`);
  const [operator] = keys as [string];
  const operand = rule[operator];
  switch (operator) {
    case 'prefix':
      if (typeof operand !== 'string')
        throw new FilterPatternError(`"prefix" at ${path} got ${JSON.stringify(operand)}; allowed: a string`);
      return present && typeof value === 'string' && value.startsWith(operand);
    case 'anything-but': {
      const excluded = Array.isArray(operand) ? operand : [operand];
      if (excluded.some(isObject)) {
        throw new FilterPatternError(`"anything-but" at ${path} got ${JSON.stringify(operand)}; allowed: a value or a list of values`);
      }
      return present && !excluded.includes(value);
    }
    case 'exists':
      return operand === present;
    default:
      throw new FilterPatternError(`Filter rule at ${path} uses ${JSON.stringify(operator)}; allowed: ${SUPPORTED}`);
  }
}

function matchesField(rules: unknown, present: boolean, value: unknown, path: string): boolean {
  if (isObject(rules)) {
    if (!present || !isObject(value)) return false;
    return matchesObject(rules, value, path);
  }
  if (!Array.isArray(rules)) {
    throw new FilterPatternError(`Filter pattern at ${path} got ${JSON.stringify(rules)}; allowed: a list of rules or a nested object`);
  }
  const candidates = Array.isArray(value) ? value : [value];
  return rules.some((rule) => candidates.some((candidate) => matchesRule(rule, present, candidate, path)));
}

function matchesObject(pattern: Record<string, unknown>, value: Record<string, unknown>, path: string): boolean {
  return Object.entries(pattern).every(([key, rules]) => matchesField(rules, Object.hasOwn(value, key), value[key], `${path}.${key}`));
}

/**
 * Whether a record (the Lambda event record as JSON) matches one filter-criteria pattern, as
 * the event source mapping evaluates it: every field of the pattern must match, and a field
 * matches when any of its rules does. Implements the subset the relay uses; any other operator
 * fails loudly instead of matching wrongly.
 *
 * @example
 * ```ts
 * matchesFilterPattern({ eventName: ['INSERT'] }, record); // true for inserts
 * ```
 */
export function matchesFilterPattern(pattern: Record<string, unknown>, record: unknown): boolean {
  return isObject(record) && matchesObject(pattern, record, '$');
}

/** Whether the record passes filter criteria made of these patterns (any one matching is enough; none means all pass). */
export function passesFilters(patterns: readonly Record<string, unknown>[], record: unknown): boolean {
  return patterns.length === 0 || patterns.some((pattern) => matchesFilterPattern(pattern, record));
}
