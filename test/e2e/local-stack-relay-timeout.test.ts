import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localApp } from '../../examples/orders/local-app.js';
import { config as exampleConfig } from '../../examples/orders/outbox.config.js';
import { defineConfig } from '../../shared/config.js';
import { type LocalStack, startLocalStack } from '../../shared/local/stack/local-stack.js';
import { localRelayHandler } from '../../shared/local/stack/relay.js';
import { waitFor } from '../helpers/wait.js';

/** A timeout no default has, so the runner can only have taken it from the config. */
const TIMEOUT_SECONDS = 7;
const config = defineConfig({ ...exampleConfig, relay: { ...exampleConfig.relay, timeoutSeconds: TIMEOUT_SECONDS } });

let stack: LocalStack;
/** What the relay handler's context said was left, at the start of each invocation. */
const remaining: number[] = [];

beforeAll(async () => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  const app = localApp();
  stack = await startLocalStack({
    config,
    ...app,
    relay: (deps) => {
      const handler = localRelayHandler(deps);
      return (event, context) => {
        remaining.push(context.getRemainingTimeInMillis());
        return handler(event, context);
      };
    },
    apiPort: 0,
  });
});

afterAll(async () => {
  await stack?.stop();
});

describe('npm start stack: the relay timeout', () => {
  it("invokes the relay with the config's relay.timeoutSeconds, as the stack deploys it", async () => {
    const response = await fetch(`${stack.apiUrl}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ total: 12, currency: 'EUR' }),
    });
    expect(response.status).toBe(201);

    await waitFor(() => remaining.length > 0, { timeoutMs: 30_000, what: 'a relay invocation' });
    expect(remaining[0]).toBeLessThanOrEqual(TIMEOUT_SECONDS * 1000);
    // Counted down from the configured timeout, not from the 60 s default.
    expect(remaining[0]).toBeGreaterThan((TIMEOUT_SECONDS - 2) * 1000);
  });
});
