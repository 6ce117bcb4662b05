/**
 * Why a value would not survive `JSON.stringify` unchanged, with the path to the culprit, or
 * `undefined` when it is plain JSON data. `JSON.stringify` itself silently drops `undefined`
 * and functions, turns `NaN` into `null`, `Map` into `{}` and a `Date` into a string that reads
 * back as a string; an outbox must not lose or alter data that way, so such values are refused
 * before anything is written.
 */
export function jsonProblem(value: unknown, path = 'data'): string | undefined {
  return walk(value, path, []);
}

function walk(value: unknown, path: string, ancestors: object[]): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : `${path} is ${value}, which JSON cannot represent`;
    case 'undefined':
      return `${path} is undefined, which JSON drops (use null)`;
    case 'bigint':
      return `${path} is a BigInt, which JSON cannot represent (use a string or number)`;
    case 'function':
      return `${path} is a function`;
    case 'symbol':
      return `${path} is a symbol`;
  }
  if (value === null) return undefined;
  const object = value as object;
  if (ancestors.includes(object)) return `${path} refers back to one of its parents (a cycle)`;
  if (Array.isArray(object)) {
    const inner = [...ancestors, object];
    for (let i = 0; i < object.length; i++) {
      if (!(i in object)) return `${path}[${i}] is an empty array slot`;
      const problem = walk(object[i], `${path}[${i}]`, inner);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (object instanceof Date) return `${path} is a Date, which JSON turns into a string (send date.toISOString() to mean that)`;
  const prototype = Object.getPrototypeOf(object);
  if (prototype !== Object.prototype && prototype !== null) {
    const name = (object.constructor as { name?: string } | undefined)?.name ?? 'an object with a custom prototype';
    return `${path} is a ${name}, which JSON does not represent faithfully (use a plain object or array)`;
  }
  const inner = [...ancestors, object];
  for (const [key, child] of Object.entries(object)) {
    const problem = walk(child, `${path}.${key}`, inner);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

const NONCHARACTERS = /[\uFFFE\uFFFF]/g;

/**
 * JSON text with U+FFFE and U+FFFF written as `\ufffe` and `\uffff`. `JSON.stringify` escapes
 * control characters and lone surrogates but leaves these two, which SQS refuses in a message
 * (`InvalidMessageContents`): an envelope delivered to a queue, or a dead letter, holding one
 * would never arrive. The escapes read back as the same string. Only for JSON text: outside
 * strings neither character can occur.
 *
 * @example
 * ```ts
 * escapeNoncharacters(JSON.stringify({ note: 'x\uFFFF' })); // '{"note":"x\\uffff"}'
 * ```
 */
export function escapeNoncharacters(json: string): string {
  return json.replace(NONCHARACTERS, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}
