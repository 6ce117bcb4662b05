/** The most slots an `Outbox` remembers; past it, the least recently written is forgotten. */
const CAPACITY = 10_000;

/**
 * The write helper's memory of each slot's last sequence, so a write is first tried against the
 * sequence it expects; bounded so that a process writing many aggregates does not grow without end.
 *
 * @example
 * ```ts
 * const sequences = new SequenceMemory();
 * sequences.remember('OUTBOX#order#o-1', 3);
 * sequences.get('OUTBOX#order#o-1'); // 3
 * ```
 */
export class SequenceMemory {
  readonly #sequences = new Map<string, number>();

  /** The slot's last sequence, or `undefined` for a slot not seen (first assumed absent). */
  get(pk: string): number | undefined {
    return this.#sequences.get(pk);
  }

  /** Records `seq` as the slot's latest and makes it the most recent entry, forgetting the oldest past the bound. */
  remember(pk: string, seq: number): void {
    this.#sequences.delete(pk);
    this.#sequences.set(pk, seq);
    if (this.#sequences.size > CAPACITY) {
      const oldest = this.#sequences.keys().next().value;
      if (oldest !== undefined) this.#sequences.delete(oldest);
    }
  }

  /** Forgets the slot: it was found absent, so the next write assumes it is new. */
  forget(pk: string): void {
    this.#sequences.delete(pk);
  }
}
