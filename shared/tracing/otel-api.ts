/**
 * The optional `@opentelemetry/api`, loaded only when something registered an OpenTelemetry global
 * (a tracer provider, a context manager: the ADOT layer, the user's SDK setup). Every 1.x copy of
 * the API keeps its globals under one shared symbol, so looking for it costs nothing and needs no
 * import; without it, nothing is imported and no span is made.
 */

import type * as OtelApiModule from '@opentelemetry/api';

export type OtelApi = typeof OtelApiModule;

/** The instrumentation scope of every span this package makes. */
export const TRACER_NAME = 'dynamodb-outbox';

/** Where every copy of `@opentelemetry/api` 1.x registers its globals (its `internal/global-utils`). */
const GLOBAL_KEY = Symbol.for('opentelemetry.js.api.1');

/** The globals a feature needs: `context` (a context manager) to read the active span, `trace` (a tracer provider) to make spans. */
export type OtelGlobal = 'context' | 'trace';

/**
 * How the API is imported. The `.catch` keeps a missing package a non-event: bundlers (esbuild)
 * leave an `import()` whose failure is handled unresolved instead of failing the build, and at
 * run time it yields `undefined`. Tests replace `load` to act as if the package were absent.
 */
export const otelImport = {
  load: (): Promise<OtelApi | undefined> => import('@opentelemetry/api').catch(() => undefined),
};

/** `null`: not tried yet. */
let loaded: OtelApi | undefined | null = null;
let loading: Promise<OtelApi | undefined> | undefined;

/** Whether an OpenTelemetry API of major version 1 has registered `what` globally. */
export function otelRegistered(what: OtelGlobal): boolean {
  const registered = (globalThis as Record<symbol, Partial<Record<OtelGlobal, unknown>> | undefined>)[GLOBAL_KEY];
  return registered?.[what] !== undefined;
}

/**
 * The API when `what` is registered and the package can be loaded: at once once loaded, else a
 * promise of it (the first call only); `undefined` when nothing is registered or the package is absent.
 */
export function otelApi(what: OtelGlobal): OtelApi | undefined | Promise<OtelApi | undefined> {
  if (!otelRegistered(what)) return undefined;
  if (loaded !== null) return loaded;
  loading ??= otelImport.load().then(
    (api) => (loaded = api),
    () => (loaded = undefined),
  );
  return loading;
}

/** Forgets the loaded API, so the next call loads it again through {@link otelImport} (tests). */
export function resetOtelApi(): void {
  loaded = null;
  loading = undefined;
}

/** Records `error` on `span` and marks it failed, with the error's message as the status's. */
export function failSpan(api: OtelApi, span: OtelApiModule.Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: api.SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}
