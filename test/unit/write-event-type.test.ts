import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { WriteValidationError } from '../../shared/errors.js';
import { planSlots } from '../../shared/write/input.js';

const config = defineConfig({ source: 'urn:test:unit', topics: [{ name: 'orders' }], routes: { order: 'orders' } });
const stamp = () => ({ id: '01890a5d-ac96-774b-bcce-b302099a8057', time: '2026-01-01T00:00:00.000Z' });
const plan = (type: string) => planSlots([{ aggregate: { type: 'order', id: 'o-1' }, type, data: null }], config, stamp);

describe('write helper: the length of an event type', () => {
  it('counts characters, so a type of 256 characters outside the Basic Multilingual Plane is taken', () => {
    const emoji = '\u{1F4E6}'.repeat(256);
    expect(emoji.length).toBe(512);

    expect(plan(emoji)[0]?.events[0]?.type).toBe(emoji);
    expect(plan('t'.repeat(256))[0]?.events[0]?.type).toHaveLength(256);
  });

  it.each([
    ['257 characters', 't'.repeat(257)],
    ['257 characters outside the Basic Multilingual Plane', '\u{1F4E6}'.repeat(257)],
  ])('refuses a type of %s, naming the limit', (_, type) => {
    expect(() => plan(type)).toThrow(WriteValidationError);
    expect(() => plan(type)).toThrow(/events\[0\]\.type is .*; allowed: a string that is not blank, of at most 256 characters/);
  });

  it('refuses a blank type in words that exclude it', () => {
    expect(() => plan(' ')).toThrow(/events\[0\]\.type is " "; allowed: a string that is not blank, of at most 256 characters/);
  });
});
