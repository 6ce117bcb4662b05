import { afterAll } from 'vitest';

/*
 * Run before each test file of the projects whose files share a process (vitest.config.ts): what a
 * file sets in `process.env` (a handler's variables, a switch such as POWERTOOLS_METRICS_DISABLED)
 * is undone when it ends, so the next file starts from the same environment it would get alone.
 */
const before = { ...process.env };

afterAll(() => {
  for (const name of Object.keys(process.env)) {
    if (!(name in before)) delete process.env[name];
  }
  Object.assign(process.env, before);
});
