import { showValue } from './show-value.js';

/**
 * What a value given where an object of callbacks belongs (a logger, a metrics sink) was, as a
 * refusal shows it after "got", or `undefined` when it is an object whose `required` members are
 * functions, and its `optional` ones too where present. An object is named by the members it
 * lacks, not shown: a logger would show as pages of JSON.
 *
 * @example
 * ```ts
 * methodsFault({ info() {} }, ['info', 'warn', 'error']); // 'an object whose warn, error are no functions'
 * methodsFault(undefined, ['addMetric']); // 'undefined'
 * ```
 */
export function methodsFault(value: unknown, required: readonly string[], optional: readonly string[] = []): string | undefined {
  if (typeof value !== 'object' || value === null) return showValue(value);
  const members = value as Record<string, unknown>;
  const missing = required.filter((name) => typeof members[name] !== 'function');
  const wrong = optional.filter((name) => members[name] !== undefined && typeof members[name] !== 'function');
  const faults = [...missing, ...wrong];
  if (faults.length === 0) return undefined;
  return `an object whose ${faults.join(', ')} ${faults.length === 1 ? 'is no function' : 'are no functions'}`;
}
