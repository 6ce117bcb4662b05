/** The most slots an `Outbox` remembers; past it, the least recently written is forgotten. */
const CAPACITY = 10_000;

/** What a write last saw of a slot: its sequence and, where it saw it, its creation time. */
export interface SlotState {
  readonly seq: number;
  /** Unknown for a slot seen only in a state without one (written before creation times were kept). */
  readonly createdAt: string | undefined;
}

/**
 * The write helper's memory of each slot's last sequence (and creation time, which names the
 * slot's life between TTL removals), so a write is first tried against the state it expects;
 * bounded so that a process writing many aggregates does not grow without end.
 *
 * @example
 * ```ts
 * const sequences = new SequenceMemory();
 * sequences.remember('OUTBOX#order#o-1', 3, '2025-01-01T00:00:00.000Z');
 * sequences.get('OUTBOX#order#o-1'); // 3
 * sequences.state('OUTBOX#order#o-1'); // { seq: 3, createdAt: '2025-01-01T00:00:00.000Z' }
 * ```
 */
export class SequenceMemory {
  readonly #slots = new Map<string, SlotState>();

  /** The slot's last sequence, or `undefined` for a slot not seen (first assumed absent). */
  get(pk: string): number | undefined {
    return this.#slots.get(pk)?.seq;
  }

  /** The slot's last sequence and creation time, or `undefined` for a slot not seen. */
  state(pk: string): SlotState | undefined {
    return this.#slots.get(pk);
  }

  /** Records `seq` (and `createdAt`) as the slot's latest and makes it the most recent entry, forgetting the oldest past the bound. */
  remember(pk: string, seq: number, createdAt?: string): void {
    this.#slots.delete(pk);
    this.#slots.set(pk, { seq, createdAt });
    if (this.#slots.size > CAPACITY) {
      const oldest = this.#slots.keys().next().value;
      if (oldest !== undefined) this.#slots.delete(oldest);
    }
  }

  /** Forgets the slot: it was found absent, so the next write assumes it is new. */
  forget(pk: string): void {
    this.#slots.delete(pk);
  }
}
