/** Where an event stands in its aggregate's history: envelope `sequenceepoch`, then `sequence`. */
export interface AggregatePosition {
  readonly aggregate: string;
  /** ISO 8601 time the aggregate's slot was created: it sorts as text. */
  readonly sequenceEpoch: string;
  readonly sequence: number;
}

const before = (a: AggregatePosition, b: AggregatePosition): number =>
  a.sequenceEpoch < b.sequenceEpoch ? -1 : a.sequenceEpoch > b.sequenceEpoch ? 1 : a.sequence - b.sequence;

/**
 * Orders events so that each aggregate's come in (`sequenceepoch`, `sequence`) order, whatever
 * order they were received in (a standard queue, like the relay DLQ, keeps none). They come in
 * rounds: every aggregate's first event, then every aggregate's second, and so on, aggregates in
 * the order their first event came. A publisher that sends at most one event of an aggregate per
 * request then fills each request with the most events it can.
 *
 * @example
 * ```ts
 * inAggregateOrder([a2, b1, a1], (e) => e.position); // [a1, b1, a2]
 * ```
 */
export function inAggregateOrder<T>(items: readonly T[], positionOf: (item: T) => AggregatePosition): T[] {
  const byAggregate = new Map<string, T[]>();
  for (const item of items) {
    const aggregate = positionOf(item).aggregate;
    const list = byAggregate.get(aggregate) ?? [];
    list.push(item);
    byAggregate.set(aggregate, list);
  }
  const lists = [...byAggregate.values()].map((list) => list.sort((a, b) => before(positionOf(a), positionOf(b))));
  const ordered: T[] = [];
  for (let round = 0; ordered.length < items.length; round++) {
    for (const list of lists) if (round < list.length) ordered.push(list[round] as T);
  }
  return ordered;
}
