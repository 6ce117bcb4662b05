import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { catalogDocument } from '../../shared/catalog/asyncapi.js';
import { defineConfig } from '../../shared/config.js';
import { tracestateProblem } from '../../shared/tracing/trace-context.js';
import { seededRandom } from '../helpers/seeded-random.js';

/*
 * The catalog tells consumers what a valid `tracestate` is. It must say what the write helper's
 * rules say (tracestateProblem): no value one takes and the other refuses, but for a repeated
 * key, which no pattern without back-references can see and the description states instead.
 */

const config = defineConfig({
  source: 'urn:test:shop',
  topics: [{ name: 'orders' }],
  routes: { order: 'orders' },
  eventTypes: { 'order.placed': { version: 1, aggregateType: 'order' } },
});
const message = (catalogDocument(config).document.components as Record<string, Record<string, Record<string, Record<string, unknown>>>>)
  .messages?.['order.placed.v1'] as { headers: { properties: Record<string, unknown> }; payload: { properties: Record<string, unknown> } };
const headerSchema = message.headers.properties.tracestate as Record<string, unknown>;
const validate = new Ajv({ strict: false }).compile(headerSchema);
const takes = (value: string) => tracestateProblem(value) === undefined;

const next = seededRandom(20261129);
const pick = <T>(choices: readonly T[]): T => choices[Math.floor(next() * choices.length)] as T;
const text = (length: number, alphabet: string) => Array.from({ length }, () => pick([...alphabet])).join('');
const KEY_CHARS = 'abcxyz019_-*/';
const VALUE_CHARS = 'aZ09 !"+-<>~./:';

/** A member's key and value, valid or with one of them broken a way a rule looks for. */
function member(index: number): string {
  const keys = [
    `k${index}`,
    `${pick(['a', 'z'])}${text(Math.floor(next() * 6), KEY_CHARS)}${index}`,
    `${index}${text(3, KEY_CHARS)}@${pick(['sys', 'a'])}`,
    `t${index}@${text(12, KEY_CHARS).replace(/^[^a-z]/, 'v')}`,
  ];
  const values = [text(1 + Math.floor(next() * 12), VALUE_CHARS).replace(/ $/, '.'), 'v', '0', 'a b'];
  // The longest key and value, now and then: more would put most lists of 33 over 512 characters.
  if (next() < 0.03) keys.push(`k${index}${'a'.repeat(256 - `k${index}`.length)}`);
  if (next() < 0.03) values.push(`${'w'.repeat(255)}x`);
  const broken = [
    () => `K${index}=v`, // upper-case key
    () => `${index}=v`, // a key of digits without a tenant
    () => `k${index}${'a'.repeat(257 - `k${index}`.length)}=v`, // 257-character key
    () => `${'t'.repeat(242)}@s${index}=v`, // 242-character tenant
    () => `t${index}@${'s'.repeat(15)}=v`, // 15-character system
    () => `k${index}=${'w'.repeat(257)}`, // 257-character value
    () => `k${index}=a=b`, // = in the value
    () => `k${index}=`, // empty value
    () => `k${index}=caf\u00e9`, // not ASCII
    () => `k${index}=a\u0001b`, // a control character
    () => `k${index}`, // no =
  ];
  if (next() < 0.07) return pick(broken)();
  return `${pick(keys)}=${pick(values)}`;
}

/** A tracestate: 0 to 35 members among empty parts, with spaces and tabs around them, a key now and then twice. */
function generated(): string {
  const count = pick([0, 1, 2, 3, 5, 8, 31, 32, 32, 33, 34]);
  const parts: string[] = [];
  for (let i = 0; i < count; i++) {
    if (next() < 0.15) parts.push(pick(['', ' ', '\t ']));
    parts.push(`${pick(['', ' ', '\t'])}${member(i)}${pick(['', '', ' \t'])}`);
  }
  // A key again, with its value or another.
  if (count > 0 && next() < 0.12) parts.splice(Math.floor(next() * parts.length), 0, `${pick(parts).split('=')[0]}=again`);
  if (next() < 0.2) parts.push(pick(['', ' ']));
  return parts.join(',');
}

const values = Array.from({ length: 800 }, generated);

describe('the catalog’s tracestate schema', () => {
  it('is one schema in the envelope and in the headers, with no lookahead or back-reference in its pattern', () => {
    expect(message.payload.properties.tracestate).toEqual(headerSchema);
    expect(headerSchema.pattern).toEqual(expect.any(String));
    expect(headerSchema.pattern).not.toMatch(/\(\?|\\[1-9k]/);
    expect(headerSchema.description).toContain('distinct keys');
  });

  it.each([
    ['over 512 characters', `a=${'b'.repeat(511)}`],
    ['33 members', Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(',')],
    ['a member without =', 'congo'],
    ['an upper-case key', 'Congo=1'],
    ['a value with a comma-free = sign', 'a=b=c'],
  ])('refuses %s, as the write helper does', (_, state) => {
    expect(takes(state)).toBe(false);
    expect(validate(state)).toBe(false);
  });

  it.each([
    ['one member', 'congo=t61rcWkgMzE'],
    ['32 members and empty ones, spaces and tabs around them', ` ,${Array.from({ length: 32 }, (_, i) => `k${i}=v`).join(' ,\t')},, `],
    ['no member', ' , '],
    ['the empty string', ''],
    ['a multi-tenant key', 'tenant@system=value with spaces'],
    ['512 characters', `a=${'b'.repeat(255)},c=${'d'.repeat(252)}`],
  ])('takes %s, as the write helper does', (_, state) => {
    expect(takes(state)).toBe(true);
    expect(validate(state)).toBe(true);
  });

  it('takes exactly the values tracestateProblem takes, on 800 generated around every rule, but for a repeated key', () => {
    const problems = new Set(values.map((value) => tracestateProblem(value)?.replace(/".*"/s, '…').replace(/\d+/, 'N')));
    // Every rule is broken by some values and kept by others.
    expect([...problems].sort()).toEqual(
      [undefined, 'it has N list members', 'it is N characters long', 'its key … appears twice', 'its member … is not key=value'].sort(),
    );
    const valid = values.filter(takes);
    expect(valid.length).toBeGreaterThan(150);
    expect(values.length - valid.length).toBeGreaterThan(150);
    const disagreeing = values.filter((value) => validate(value) !== takes(value));
    expect(disagreeing.length).toBeGreaterThan(0);
    for (const value of disagreeing) expect(tracestateProblem(value)).toMatch(/^its key ".*" appears twice$/);
  });
});
