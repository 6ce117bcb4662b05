/**
 * The first line of every ESM bundle the outbox deploys, the prebuilt assets (`scripts/build.mjs`)
 * and the handlers `OutboxFunction` bundles at synthesis alike: some CommonJS dependencies call
 * `require()` at run time, which an ESM bundle lacks.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as outboxCreateRequire } from 'node:module'; const require = outboxCreateRequire(import.meta.url);";
