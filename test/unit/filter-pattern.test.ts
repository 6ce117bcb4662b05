import { readFileSync } from 'node:fs';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { relayEventSourceSettings } from '../../shared/event-source.js';
import { compileFilters, FilterPatternError } from '../../shared/local/event-source/filter-pattern.js';
import { StreamRunner } from '../../shared/local/event-source/stream-runner.js';
import { relayFilterPatterns } from '../../shared/relay-filter.js';
import { slotRecord } from '../helpers/stream-records.js';

const config = defineConfig({
  source: 'urn:test:unit',
  topics: [{ name: 'orders' }],
  routes: { order: 'orders', fast: 'orders' },
  lowLatencyAggregateTypes: ['fast'],
});
const patterns = relayEventSourceSettings(config).filterPatterns;
const relayPasses = compileFilters(patterns);
const fixture = (name: string): DynamoDBStreamEvent =>
  JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8')) as DynamoDBStreamEvent;

describe('filter-criteria matcher', () => {
  it('passes outbox-slot inserts and modifies under the relay patterns', () => {
    expect(patterns).toEqual(relayFilterPatterns(config));
    expect(relayPasses(slotRecord({ eventName: 'INSERT' }))).toBe(true);
    expect(relayPasses(slotRecord({ eventName: 'MODIFY' }))).toBe(true);
  });

  it('drops TTL removals, business items and low-latency aggregate types under the relay patterns', () => {
    expect(fixture('aws-ttl-removal-event.json').Records.filter(relayPasses)).toEqual([]);
    expect(fixture('aws-dynamodb-stream-event.json').Records.filter(relayPasses)).toEqual([]);
    expect(relayPasses(slotRecord({ eventName: 'REMOVE' }))).toBe(false);
    expect(relayPasses(slotRecord({ type: 'fast' }))).toBe(false);
    const business = slotRecord();
    business.dynamodb!.NewImage = { ...business.dynamodb!.NewImage, kind: { S: 'order' } };
    expect(relayPasses(business)).toBe(false);
    const slots = fixture('outbox-slot-stream-event.json').Records;
    expect(slots.filter(relayPasses)).toHaveLength(2);
  });

  it('matches exact values, prefixes, anything-but and exists like the event source mapping', () => {
    const record = { eventName: 'MODIFY', dynamodb: { NewImage: { pk: { S: 'OUTBOX#a' }, n: { N: '5' } } } };
    expect(compileFilters([{ eventName: ['INSERT', 'MODIFY'] }])(record)).toBe(true);
    expect(compileFilters([{ eventName: ['INSERT'] }])(record)).toBe(false);
    expect(compileFilters([{ dynamodb: { NewImage: { pk: { S: [{ prefix: 'OUTBOX#' }] } } } }])(record)).toBe(true);
    expect(compileFilters([{ dynamodb: { NewImage: { pk: { S: [{ prefix: 'ORDER#' }] } } } }])(record)).toBe(false);
    expect(compileFilters([{ dynamodb: { NewImage: { pk: { S: [{ 'anything-but': ['OUTBOX#a'] }] } } } }])(record)).toBe(false);
    expect(compileFilters([{ dynamodb: { NewImage: { pk: { S: [{ 'anything-but': 'x' }] } } } }])(record)).toBe(true);
    expect(compileFilters([{ dynamodb: { NewImage: { missing: { S: [{ 'anything-but': 'x' }] } } } }])(record)).toBe(false);
    expect(compileFilters([{ dynamodb: { NewImage: { missing: [{ exists: false }] } } }])(record)).toBe(true);
    expect(compileFilters([{ dynamodb: { NewImage: { n: { N: [{ exists: true }] } } } }])(record)).toBe(true);
    expect(compileFilters([{ dynamodb: { NewImage: { n: { S: [{ exists: true }] } } } }])(record)).toBe(false);
  });

  it('matches leaves only, as the event source mapping does: a DynamoDB-JSON attribute is no leaf, its type key is', () => {
    const record = { dynamodb: { NewImage: { kind: { S: 'slot' } } } };
    expect(compileFilters([{ dynamodb: { NewImage: { kind: [{ exists: true }] } } }])(record)).toBe(false);
    expect(compileFilters([{ dynamodb: { NewImage: { kind: [{ exists: false }] } } }])(record)).toBe(true);
    expect(compileFilters([{ dynamodb: { NewImage: { kind: [{ 'anything-but': ['order'] }] } } }])(record)).toBe(false);
    expect(compileFilters([{ dynamodb: { NewImage: { kind: { S: [{ 'anything-but': ['order'] }] } } } }])(record)).toBe(true);
    expect(compileFilters([])(record)).toBe(true);
  });

  it('rejects an operator it does not implement instead of matching wrongly', () => {
    expect(() =>
      compileFilters([{ dynamodb: { NewImage: { n: { N: [{ numeric: ['>', 1] }] } } } }])({ dynamodb: { NewImage: { n: { N: '2' } } } }),
    ).toThrow(FilterPatternError);
    expect(() => compileFilters([{ eventName: 'INSERT' }])({ eventName: 'INSERT' })).toThrow(/allowed: a list of rules or a nested object/);
  });

  it('matches a list value when any of its elements matches, as the event source mapping does', () => {
    const passes = compileFilters([{ tags: ['red'] }, { eventName: ['INSERT'] }]);

    expect(passes({ tags: ['blue', 'red'] })).toBe(true);
    expect(passes({ tags: ['blue'] })).toBe(false);
    expect(passes({ eventName: 'INSERT' })).toBe(true);
    expect(passes('not a record')).toBe(false);
  });

  it('refuses an unsupported operator when the criteria are compiled, not when a record first reaches it', () => {
    // A record with another eventName never gets to the second field; the criteria are refused all the same.
    const criteria = [{ eventName: ['INSERT'], dynamodb: { NewImage: { n: { N: [{ numeric: ['>', 1] }] } } } }];

    expect(() => compileFilters(criteria)).toThrow(/\$\.dynamodb\.NewImage\.n\.N uses "numeric"/);
    expect(
      () =>
        new StreamRunner({
          streams: { send: () => Promise.reject(new Error('never called')) } as never,
          streamArn: 'arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/x',
          settings: { ...relayEventSourceSettings(config), filterPatterns: criteria },
          handler: async () => undefined,
        }),
    ).toThrow(FilterPatternError);
  });
});
