import { describe, expect, it } from 'vitest';
import { defineConfig, type OutboxConfig } from '../../shared/config.js';
import { startLocalStack } from '../../shared/local/stack/local-stack.js';
import type { LocalRelayDeps } from '../../shared/local/stack/types.js';
import { startRefusal } from '../helpers/start-refusal.js';

/*
 * A config given as an object defineConfig accepts, without the defaults it fills in (relay
 * tuning, the publishing paths' lists), is run as defineConfig makes it: the parts read those
 * defaults, and failed reading them as a bare TypeError.
 */
describe('startLocalStack, given a config without its defaults', () => {
  it('hands the parts the config as defineConfig makes it', async () => {
    const literal = { source: 'urn:test:config-defaults', topics: [{ name: 'orders' }], routes: { order: 'orders' } };
    let seen: LocalRelayDeps['config'] | undefined;

    // The relay is built once the table, topics and queues are made: the start stops there, and stops what it started.
    const error = await startRefusal(
      startLocalStack({
        config: literal as unknown as OutboxConfig,
        relay: (deps) => {
          seen = deps.config;
          throw new Error('the relay saw its config');
        },
      }),
    );

    expect(error).toMatchObject({ message: 'the relay saw its config' });
    expect(seen).toEqual(defineConfig(literal));
  });
});
