import { PROCESSOR_ENV } from '../../shared/processor/processor-env.js';

// The container's HEALTHCHECK: exit 0 when the worker's health endpoint answers 200.
const port = process.env[PROCESSOR_ENV.healthPort] || '8080';
try {
  const response = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2000) });
  process.exit(response.ok ? 0 : 1);
} catch {
  process.exit(1);
}
