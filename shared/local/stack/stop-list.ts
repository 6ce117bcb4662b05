import { errorMessage } from '../../error-message.js';
import { LocalStackError } from '../errors.js';

/**
 * What a start has started, to stop again newest first: on `stop()`, on a failed start, and on an
 * aborted one.
 */
export class StopList {
  readonly #stops: (() => Promise<void>)[] = [];
  #stopping: Promise<unknown[]> | undefined;

  /** Whether stopping has begun. */
  get stopped(): boolean {
    return this.#stopping !== undefined;
  }

  /** Adds a part's stop; it runs before those added earlier. */
  push(stop: () => Promise<void>): void {
    this.#stops.push(stop);
  }

  /** Moves `stop`, added earlier, to run first. */
  moveFirst(stop: () => Promise<void>): void {
    this.#stops.splice(this.#stops.indexOf(stop), 1);
    this.#stops.push(stop);
  }

  /**
   * Stops every part, newest first, even when one fails to, so DynamoDB Local's Java always ends;
   * a part's failure to stop is rethrown, and when several parts failed, a `LocalStackError`
   * `STOP_FAILED` that names each and holds them in `errors`, newest part first. A later call
   * waits for the first one's stop to end (a caller that awaits it may count on Java having
   * ended), but does not throw its failure again: the first caller has it.
   */
  readonly stopAll = (): Promise<void> => {
    if (this.#stopping !== undefined) return this.#stopping.then(() => {});
    return this.stopReporting().then((failures) => {
      if (failures.length === 1) throw failures[0];
      if (failures.length > 1)
        throw new LocalStackError(
          'STOP_FAILED',
          `${failures.length} parts failed to stop (${failures.map(errorMessage).join('; ')}: they are in the error's \`errors\`), the others have been stopped`,
          { errors: failures },
        );
    });
  };

  /**
   * Stops every part as `stopAll` does, and resolves with every failure to stop, newest part
   * first (none when all stopped): what a failed start reports with its own failure.
   */
  stopReporting(): Promise<readonly unknown[]> {
    this.#stopping ??= this.#stopParts();
    return this.#stopping;
  }

  async #stopParts(): Promise<unknown[]> {
    const failures: unknown[] = [];
    for (const stop of this.#stops.splice(0).reverse()) {
      try {
        await stop();
      } catch (error) {
        failures.push(error);
      }
    }
    return failures;
  }
}
