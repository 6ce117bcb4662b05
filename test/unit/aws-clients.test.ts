import { describe, expect, it } from 'vitest';
import { snsClient, sqsClient, streamsClient } from '../../shared/aws/clients.js';

const logger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const hasLoggerMiddleware = (client: { middlewareStack: { identify(): string[] } }): boolean =>
  client.middlewareStack.identify().some((entry) => entry.startsWith('loggerMiddleware'));

describe('SDK client factories', () => {
  it.each([
    ['streams', streamsClient],
    ['sns', snsClient],
    ['sqs', sqsClient],
  ] as const)('%s: without a logger, no redacted copies are built for it; with one, it gets them', (_name, create) => {
    const quiet = create({ region: 'us-east-1' });
    const logged = create({ region: 'us-east-1', logger });
    expect(hasLoggerMiddleware(quiet)).toBe(false);
    expect(hasLoggerMiddleware(logged)).toBe(true);
    quiet.destroy();
    logged.destroy();
  });

  it('keeps the caller’s settings', async () => {
    const client = streamsClient({ region: 'eu-west-3', endpoint: 'http://127.0.0.1:9' });
    expect(await client.config.region()).toBe('eu-west-3');
    client.destroy();
  });
});
