/**
 * An abort controller as a polyfill (or another realm, such as a jsdom window) makes one: its
 * `signal` behaves like an AbortSignal (`aborted`, `reason`, `addEventListener`,
 * `removeEventListener`) but is no instance of this realm's `AbortSignal`. `listeners` counts the
 * abort listeners still added, so a test can see that a start removed its own.
 */
export class PolyfillAbortController {
  readonly #listeners = new Set<() => void>();
  readonly signal = {
    aborted: false,
    reason: undefined as unknown,
    addEventListener: (type: string, listener: () => void): void => {
      if (type === 'abort') this.#listeners.add(listener);
    },
    removeEventListener: (type: string, listener: () => void): void => {
      if (type === 'abort') this.#listeners.delete(listener);
    },
  };

  get listeners(): number {
    return this.#listeners.size;
  }

  abort(reason: unknown): void {
    if (this.signal.aborted) return;
    this.signal.aborted = true;
    this.signal.reason = reason;
    for (const listener of [...this.#listeners]) listener();
  }
}
