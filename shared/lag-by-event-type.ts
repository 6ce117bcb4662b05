/**
 * Commit-to-publish lag per (aggregate type, event type), as the relay and the stream processor
 * measure it for their `lagByEventType` metric: data definitions and bucketing only, below
 * `config.ts` and both publishers in the imports.
 */

/**
 * The `eventType` dimension value of every event type the config does not declare. A config may
 * not declare an event type of this name (`defineConfig` refuses it), so it never stands for a
 * declared type: the dimension's values are the declared types and this one.
 */
export const UNDECLARED_EVENT_TYPE = '(undeclared)';

/** Aggregate type → event type (a declared one, or {@link UNDECLARED_EVENT_TYPE}) → lag in ms. */
export type LagByEventType = Readonly<Record<string, Readonly<Record<string, number>>>>;

/**
 * The names of the event types a config declares (the keys of its `eventTypes` catalog), which
 * bound the `eventType` dimension, or `undefined` when it declares none: then no lag per event
 * type is measured at all.
 *
 * @example
 * ```ts
 * const declared = declaredEventTypes(config); // Set { 'order.placed', 'order.paid' }, or undefined
 * ```
 */
export function declaredEventTypes(config: { readonly eventTypes?: Readonly<Record<string, unknown>> }): ReadonlySet<string> | undefined {
  return config.eventTypes === undefined ? undefined : new Set(Object.keys(config.eventTypes));
}

/** A stream record's `NewImage` as either the Lambda event or the Streams SDK carries it: only the shape read here. */
type SlotImage = Readonly<Record<string, unknown>> | undefined;

/** The `type` of each event of a slot image, read without decoding the slot; events without one are left out. */
export function slotEventTypes(image: SlotImage): string[] {
  const list = (image?.events as { readonly L?: unknown } | undefined)?.L;
  if (!Array.isArray(list)) return [];
  const types: string[] = [];
  for (const value of list as readonly { readonly M?: { readonly type?: { readonly S?: unknown } } }[]) {
    const type = value?.M?.type?.S;
    if (typeof type === 'string' && type !== '') types.push(type);
  }
  return types;
}

/**
 * Adds a published record's lag under each of its events' types, bucketed: a declared type keeps
 * its name, any other counts as {@link UNDECLARED_EVENT_TYPE}. Each pair keeps its largest lag, so
 * a batch yields at most (declared types + 1) × aggregate types values.
 *
 * @example
 * ```ts
 * const lags: Record<string, Record<string, number>> = {};
 * addEventTypeLags(lags, 'order', record.dynamodb?.NewImage, 1_200, declared);
 * ```
 */
export function addEventTypeLags(
  into: Record<string, Record<string, number>>,
  aggregateType: string,
  image: SlotImage,
  lagMs: number,
  declared: ReadonlySet<string>,
): void {
  for (const type of slotEventTypes(image)) {
    const value = declared.has(type) ? type : UNDECLARED_EVENT_TYPE;
    const byType = into[aggregateType] ?? {};
    into[aggregateType] = byType;
    byType[value] = Math.max(byType[value] ?? 0, lagMs);
  }
}
