import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { catalogDocument } from '../../shared/catalog/asyncapi.js';
import { defineConfig } from '../../shared/config.js';
import { traceparentProblem } from '../../shared/tracing/trace-context.js';
import { seededRandom } from '../helpers/seeded-random.js';

/*
 * The catalog tells consumers what a valid `traceparent` is. It must say what the write helper's
 * rules say (traceparentProblem): no value one takes and the other refuses, checked on values
 * generated around every rule, each rule broken and kept.
 */

const config = defineConfig({
  source: 'urn:test:shop',
  topics: [{ name: 'orders' }],
  routes: { order: 'orders' },
  eventTypes: { 'order.placed': { version: 1, aggregateType: 'order' } },
});
const message = (catalogDocument(config).document.components as Record<string, Record<string, Record<string, Record<string, unknown>>>>)
  .messages?.['order.placed.v1'] as { headers: { properties: Record<string, unknown> }; payload: { properties: Record<string, unknown> } };
const headerSchema = message.headers.properties.traceparent as Record<string, unknown>;
const envelopeSchema = message.payload.properties.traceparent as Record<string, unknown>;

const next = seededRandom(20260301);
const pick = <T>(choices: readonly T[]): T => choices[Math.floor(next() * choices.length)] as T;
const hex = (length: number) => Array.from({ length }, () => pick([...'0123456789abcdef'])).join('');

/** A valid value, or one with one part broken a way a rule looks for (ids and flags left to chance too). */
function generated(): string {
  const version = pick(['00', '00', '01', 'fe', hex(2).replace(/^ff$/, 'fe')]);
  const parts = {
    version,
    traceId: hex(32),
    parentId: hex(16),
    flags: hex(2),
    suffix: version === '00' ? '' : pick(['', '-', `-${hex(8)}`, '-a.b~c!', `-${hex(2)}-${hex(4)}`]),
    dash: '-',
  };
  const broken: Record<keyof typeof parts, readonly string[]> = {
    version: ['ff', 'FF', '0g', '0', '000', 'f'],
    traceId: ['0'.repeat(32), hex(31), hex(33), `${hex(31)}A`],
    parentId: ['0'.repeat(16), hex(15), hex(17), `${hex(15)}A`],
    flags: ['x1', '1', '0F'],
    suffix: ['-with space', '-é', '-😀', '-\t', 'x', `-${hex(4)}`],
    dash: ['_', ''],
  };
  if (next() < 0.6) {
    const part = pick(Object.keys(broken) as (keyof typeof parts)[]);
    parts[part] = pick(broken[part]);
  }
  const { dash } = parts;
  return `${parts.version}${dash}${parts.traceId}${dash}${parts.parentId}${dash}${parts.flags}${parts.suffix}`;
}

const values = Array.from({ length: 600 }, generated);

describe('the catalog’s traceparent schema', () => {
  it('is one schema in the envelope and in the headers, with no lookahead in any pattern', () => {
    expect(envelopeSchema).toEqual(headerSchema);
    const patterns = JSON.stringify(headerSchema).match(/"pattern":"[^"]*"/g) ?? [];
    expect(patterns.length).toBeGreaterThan(1);
    // JSON Schema recommends a regular expression subset without lookahead, which validators outside JavaScript may lack.
    for (const pattern of patterns) expect(pattern).not.toContain('(?');
  });

  it('takes exactly the values traceparentProblem takes, on 600 generated around every rule', () => {
    const validate = new Ajv({ strict: false }).compile(headerSchema);
    const problems = new Set(values.map((value) => traceparentProblem(value)?.replace(/".*"/, '…')));
    // Every rule is broken by some values and kept by others.
    expect([...problems].sort()).toEqual(
      [
        undefined,
        'after its flags it has …, which is not visible ASCII',
        'its flags are followed by …, not a dash',
        'its flags are not 2 lower-case hex digits',
        'its parent id is all zeros',
        'its parent id is not 16 lower-case hex digits and a dash',
        'its trace id is all zeros',
        'its trace id is not 32 lower-case hex digits and a dash',
        'its version is not 2 lower-case hex digits and a dash',
        'version 00 has nothing after the flags',
        'version ff is invalid',
      ].sort(),
    );
    const valid = values.filter((value) => traceparentProblem(value) === undefined);
    expect(valid.length).toBeGreaterThan(100);
    expect(values.length - valid.length).toBeGreaterThan(100);
    const disagreeing = values.filter((value) => validate(value) !== (traceparentProblem(value) === undefined));
    expect(disagreeing).toEqual([]);
  });

  it('refuses each invalid value of the right shape, and takes a later version with fields after its flags', () => {
    const validate = new Ajv({ strict: false }).compile(headerSchema);
    const ids = '4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7';
    expect(validate(`00-${ids}-01`)).toBe(true);
    expect(validate(`01-${ids}-01-later.fields`)).toBe(true);
    expect(validate(`ff-${ids}-01`)).toBe(false);
    expect(validate(`00-${'0'.repeat(32)}-00f067aa0ba902b7-01`)).toBe(false);
    expect(validate(`00-4bf92f3577b34da6a3ce929d0e0e4736-${'0'.repeat(16)}-01`)).toBe(false);
    expect(validate(`00-${ids}-01-later.fields`)).toBe(false);
  });
});
