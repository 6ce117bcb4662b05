import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { jsonExcerpt, nestingDepth } from '../../shared/consumer/limits.js';
import { parseMessage } from '../../shared/consumer/parse.js';
import { anEnvelope, snsNotification } from '../helpers/envelopes.js';

/** How deep a parsed JSON value nests arrays and objects, counted by walking it. */
const depthOf = (value: unknown): number =>
  typeof value === 'object' && value !== null ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0;

describe('nestingDepth', () => {
  test.prop([fc.jsonValue({ maxDepth: 8 })])('counts the nesting of any JSON text as a walk of its value does', (value) => {
    expect(nestingDepth(JSON.stringify(value))).toBe(depthOf(value));
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(nestingDepth(JSON.stringify({ a: '[[{{\\"[', b: ['"]]'] }))).toBe(2);
  });

  it('reads a 1 MiB message nested all the way down in one pass', () => {
    const depth = 512 * 1024;
    expect(nestingDepth(`${'['.repeat(depth)}${']'.repeat(depth)}`)).toBe(depth);
  });
});

describe('jsonExcerpt', () => {
  it('never throws: a BigInt or a cycle is described instead of shown', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(jsonExcerpt({ n: 1n })).toMatch(/^\(not shown: JSON\.stringify failed: .*BigInt/);
    expect(jsonExcerpt(cycle)).toMatch(/^\(not shown: JSON\.stringify failed: .*circular/);
    expect(jsonExcerpt('x'.repeat(500))).toBe(`"${'x'.repeat(199)}…`);
  });
});

describe('parseMessage: what an SNS notification brings', () => {
  it('gives the notification’s TopicArn and MessageAttributes with the envelope', () => {
    const event = anEnvelope();
    const parsed = parseMessage(snsNotification(event.body, 'arn:aws:sns:eu-west-1:123456789012:orders', { type: 'order.placed' }));
    expect(parsed).toMatchObject({
      status: 'parsed',
      delivery: 'sns-notification',
      topicArn: 'arn:aws:sns:eu-west-1:123456789012:orders',
      messageAttributes: { type: { dataType: 'String', stringValue: 'order.placed' } },
    });
    expect(parseMessage(event.body)).not.toHaveProperty('topicArn');
  });
});
