import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { OutboxTable } from '../../infra/outbox-table.js';
import { OutboxTopics } from '../../infra/outbox-topics.js';
import { DEFAULT_RELAY_ENTRY, RelayFunction } from '../../infra/relay-function.js';
import { defineConfig, type RelayTuning } from '../../shared/config.js';
import { appWithoutBundling } from '../helpers/cdk.js';

/** The properties of the relay's event source mapping, synthesised for a config with this relay tuning. */
function relayMapping(relay: Partial<RelayTuning>): Record<string, unknown> {
  const config = defineConfig({ source: 'urn:test:limits', topics: [{ name: 'orders' }], routes: { order: 'orders' }, relay });
  const stack = new Stack(appWithoutBundling(), 'Test');
  const table = new OutboxTable(stack, 'Table').table;
  const topics = new OutboxTopics(stack, 'Topics', { config });
  new RelayFunction(stack, 'Relay', { config, table, topics, entry: DEFAULT_RELAY_ENTRY });
  const mappings = Object.values(Template.fromStack(stack).findResources('AWS::Lambda::EventSourceMapping'));
  expect(mappings).toHaveLength(1);
  return mappings[0]!.Properties as Record<string, unknown>;
}

describe('RelayFunction: retry and record-age limits', () => {
  it('deploys -1 (no limit) for both, as the config allows', () => {
    expect(relayMapping({ maxRetryAttempts: -1, maxRecordAgeSeconds: -1 })).toMatchObject({
      MaximumRetryAttempts: -1,
      MaximumRecordAgeInSeconds: -1,
    });
  });

  it('deploys finite limits as given, next to -1 for the other', () => {
    expect(relayMapping({ maxRetryAttempts: -1, maxRecordAgeSeconds: 3600 })).toMatchObject({
      MaximumRetryAttempts: -1,
      MaximumRecordAgeInSeconds: 3600,
    });
    expect(relayMapping({ maxRetryAttempts: 7, maxRecordAgeSeconds: -1 })).toMatchObject({
      MaximumRetryAttempts: 7,
      MaximumRecordAgeInSeconds: -1,
    });
  });
});
