/**
 * Abort signals that many concurrent requests and waits listen to at once. Each SDK request
 * given an `abortSignal` adds a listener for as long as it is in flight, and so does each
 * abortable wait; past 10 at once Node warns of a leak (`MaxListenersExceededWarning`). Here the
 * number is bounded by the concurrency (publish requests, shards, lanes) and every listener is
 * removed when its request or wait ends, so the warning would be noise in the logs.
 */

import { setMaxListeners } from 'node:events';

/**
 * An AbortController whose signal takes any number of listeners at once.
 *
 * @example
 * ```ts
 * const stopping = sharedAbortController();
 * await Promise.all(shards.map((shard) => read(shard, { abortSignal: stopping.signal })));
 * ```
 */
export function sharedAbortController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

/**
 * What a start takes as its `signal`: Node's own `AbortSignal`, or one that behaves as it does
 * from a polyfill or another realm (a jsdom window, say).
 */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * Whether `value` behaves as an {@link AbortSignalLike}: a boolean `aborted`, and `addEventListener`
 * and `removeEventListener` functions (a wait that ends removes its listener). The one test of a
 * `signal` option, whatever the error class its refusal is worded in.
 *
 * @example
 * ```ts
 * isAbortSignalLike(new AbortController().signal); // true
 * isAbortSignalLike({ aborted: false, addEventListener() {} }); // false
 * ```
 */
export function isAbortSignalLike(value: unknown): value is AbortSignalLike {
  if (value instanceof AbortSignal) return true;
  if (typeof value !== 'object' || value === null) return false;
  const like = value as Record<string, unknown>;
  return typeof like.aborted === 'boolean' && typeof like.addEventListener === 'function' && typeof like.removeEventListener === 'function';
}

/**
 * A signal that aborts when `parent` does (with its reason) and takes any number of listeners
 * at once, leaving the caller's signal as it was; `detach()` stops following `parent`.
 *
 * @example
 * ```ts
 * const followed = followSignal(invocationSignal);
 * try {
 *   await Promise.all(batches.map((batch) => sns.send(batch, { abortSignal: followed.signal })));
 * } finally {
 *   followed.detach();
 * }
 * ```
 */
export function followSignal(parent: AbortSignalLike): { readonly signal: AbortSignal; detach(): void } {
  const controller = sharedAbortController();
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { signal: controller.signal, detach: () => {} };
  }
  const forward = (): void => controller.abort(parent.reason);
  parent.addEventListener('abort', forward, { once: true });
  return { signal: controller.signal, detach: () => parent.removeEventListener('abort', forward) };
}
