import { healthPortFromEnv } from '../../shared/processor/processor-env.js';

// The container's HEALTHCHECK: exit 0 when the worker's health endpoint answers 200. A port setting
// it cannot read (empty, blank, not a port) fails the check, saying why, rather than asking another port.
let port: number;
try {
  port = healthPortFromEnv();
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
}
try {
  const response = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2000) });
  process.exit(response.ok ? 0 : 1);
} catch {
  process.exit(1);
}
