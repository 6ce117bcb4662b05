import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { ConfigError } from '../../shared/errors.js';
import { Relay } from '../../shared/relay/relay.js';

const client = { send: async () => ({}) } as never;
const config = defineConfig({ source: 'urn:test', topics: [{ name: 'orders' }], routes: { order: 'orders' } });

/** What `new Relay` threw for `topicArns`. */
function refusal(topicArns: unknown): unknown {
  try {
    new Relay({
      config,
      sns: client,
      sqs: client,
      topicArns: topicArns as never,
      deadLetterQueueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/relay-dlq',
    });
  } catch (error) {
    return error;
  }
  throw new Error('not refused');
}

describe("a Relay's refusal of its topic ARNs shows what was given (showValue), with the ConfigError", () => {
  it.each([
    ['topicArns', 5n, 'got 5n; allowed: an object of topic name → topic ARN'],
    ['topicArns.orders', { orders: 5n }, 'got 5n; allowed: an SNS topic ARN (arn:'],
    ['topicArns.orders', { orders: Number.NaN }, 'got NaN; allowed: an SNS topic ARN (arn:'],
  ])('%s: %s', (field, topicArns, detail) => {
    const error = refusal(topicArns);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ field });
    expect((error as Error).message).toContain(detail);
  });
});
