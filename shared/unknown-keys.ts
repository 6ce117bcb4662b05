import { showValue } from './show-value.js';

/**
 * The one wording of a refusal of keys a part does not read (a misspelt option, setting or field,
 * which would otherwise be ignored in silence): `unknown key "x"; allowed: …`, each unknown key
 * shown, and every key allowed. A refusal whose heading names the key (`Invalid outbox config at
 * relay.batchsize: …`) gives {@link unknownKeysDetail}; one that names no field says whose keys
 * they are first ({@link objectHasUnknownKeys}).
 *
 * @example
 * ```ts
 * unknownKeys({ tablename: 'orders' }, ['tableName']); // ['tablename']
 * unknownKeysDetail(['batchsize'], ['batchSize']); // 'unknown key "batchsize"; allowed: batchSize'
 * objectHasUnknownKeys('options', ['a', 'b'], ['c']); // 'options has unknown keys "a", "b"; allowed: c'
 * ```
 */

/** The own keys of `value` that `allowed` does not list, in the object's order. */
export const unknownKeys = (value: object, allowed: readonly string[]): string[] =>
  Object.keys(value).filter((key) => !allowed.includes(key));

/** `unknown key "x"; allowed: a, b` (`unknown keys "x", "y"` for several): after a heading that names the object or key. */
export const unknownKeysDetail = (unknown: readonly string[], allowed: readonly string[]): string =>
  `unknown key${unknown.length === 1 ? '' : 's'} ${unknown.map((key) => showValue(key)).join(', ')}; allowed: ${allowed.join(', ')}`;

/** `<path> has unknown key "x"; allowed: a, b`: a message of its own, naming the object at `path`. */
export const objectHasUnknownKeys = (path: string, unknown: readonly string[], allowed: readonly string[]): string =>
  `${path} has ${unknownKeysDetail(unknown, allowed)}`;
