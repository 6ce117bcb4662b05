/**
 * The write helper's memory of each slot's last sequence, so a write is first tried against the
 * sequence it expects; bounded so that a process writing many aggregates does not grow without end.
 */

const SEQUENCE_CACHE_SIZE = 10_000;

/** Records `seq` as the slot's latest and makes it the most recent entry, evicting the oldest past the bound. */
export function rememberSequence(sequences: Map<string, number>, pk: string, seq: number): void {
  sequences.delete(pk);
  sequences.set(pk, seq);
  if (sequences.size > SEQUENCE_CACHE_SIZE) {
    const oldest = sequences.keys().next().value;
    if (oldest !== undefined) sequences.delete(oldest);
  }
}
