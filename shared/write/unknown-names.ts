/**
 * The write helper's one wording of a refusal of names it does not read (an input's fields, an
 * option's keys, an action's fields), built only once something is refused.
 *
 * @example
 * ```ts
 * unknownNames('options', 'key', ['retries'], ['config', 'tableName']);
 * // 'options has unknown key "retries"; allowed: config, tableName'
 * ```
 */
export const unknownNames = (path: string, noun: 'field' | 'key', unknown: readonly string[], allowed: readonly string[]): string =>
  `${path} has unknown ${noun}${unknown.length === 1 ? '' : 's'} ${unknown.map((name) => JSON.stringify(name)).join(', ')}; allowed: ${allowed.join(', ')}`;
