/**
 * A wake-up for waiters on someone else's progress: every `next()` before a `fire()` resolves
 * at that `fire()`, and a `next()` after it waits for the one after.
 *
 * @example
 * ```ts
 * const progressed = new ProgressSignal();
 * await Promise.race([progressed.next(), sleep(pollInterval)]); // in one lane
 * progressed.fire(); // in another, once it handed a batch over
 * ```
 */
export class ProgressSignal {
  private progressed: { promise: Promise<void>; resolve: () => void } | undefined;

  /** Resolves at the next `fire()`. */
  next(): Promise<void> {
    if (this.progressed === undefined) {
      let resolve: () => void = () => {};
      const promise = new Promise<void>((done) => {
        resolve = done;
      });
      this.progressed = { promise, resolve };
    }
    return this.progressed.promise;
  }

  /** Wakes every waiter of `next()` so far. */
  fire(): void {
    this.progressed?.resolve();
    this.progressed = undefined;
  }
}
