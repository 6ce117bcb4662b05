import { describe, expect, it } from 'vitest';
import { ConsumerOptionsError } from '../../shared/consumer/errors.js';
import { inboxKey } from '../../shared/consumer/inbox-keys.js';

const refusal = (event: unknown): ConsumerOptionsError => {
  try {
    inboxKey('billing', event as never);
  } catch (error) {
    if (error instanceof ConsumerOptionsError) return error;
    throw error;
  }
  throw new Error('inboxKey took it');
};

describe('inboxKey', () => {
  it('gives the key of an event from the event or its { source, id }', () => {
    expect(inboxKey('billing', { source: 'urn:example:shop', id: 'e-1' })).toEqual({
      pk: 'INBOX#billing#e-1',
      sk: 'INBOX#urn:example:shop',
    });
  });

  it('says which of source and id an object given as the event lacks, and what was given otherwise', () => {
    expect(refusal({ id: 'e-1', body: '{}' }).message).toContain(
      'got an object whose source is undefined and id is "e-1" as the event; allowed: the event, or { source, id } (both strings)',
    );
    expect(refusal('e-1').message).toContain('got an event id alone ("e-1") as the event');
    expect(refusal(undefined).message).toContain('got undefined as the event');
    expect(refusal({ source: 'urn:example:shop', id: 7 }).field).toBe('inboxKey');
  });
});
