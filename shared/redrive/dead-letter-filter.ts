import { showValue } from '../show-value.js';
import { DEAD_LETTER_REASONS, type DeadLetterInfo } from './dead-letter-info.js';
import { RedriveOptionsError } from './errors.js';

/**
 * Which dead letters a summary counts or a redrive moves; every field given must match (and
 * `types`, any one of them). Times are a dead letter's time as {@link DeadLetterInfo.time} has it.
 */
export interface DeadLetterFilter {
  /** One of `PUBLISH_REJECTED`, `MALFORMED_SLOT`, `UNKNOWN_ROUTE` (relay DLQ), `MAX_RECEIVE_COUNT_EXCEEDED` (subscriber DLQ), `MALFORMED`. */
  readonly reason?: string;
  /** Event types (CloudEvents `type`); a dead letter of any of them matches. */
  readonly types?: readonly string[];
  readonly aggregateType?: string;
  /** One aggregate: its type and id (the envelope's `aggregatetype` and `subject`). */
  readonly aggregate?: { readonly type: string; readonly id: string };
  /** From this instant on, inclusive. */
  readonly since?: Date;
  /** Before this instant, exclusive. */
  readonly until?: Date;
}

const nonEmpty = (value: unknown): boolean => typeof value === 'string' && value !== '';

const isDate = (value: unknown): value is Date => value instanceof Date && !Number.isNaN(value.getTime());

/**
 * Refuses a filter that could match nothing by mistake (an unknown reason, an empty type, an
 * invalid date, `since` not before `until`) with a {@link RedriveOptionsError} naming the field, the value
 * and what is allowed, before anything is read.
 *
 * @example
 * ```ts
 * checkDeadLetterFilter({ reason: 'PUBLISH_REJECTED', since: new Date('2026-05-01T10:00:00Z') });
 * ```
 */
export function checkDeadLetterFilter(filter: DeadLetterFilter | undefined): void {
  if (filter === undefined) return;
  const { reason, types, aggregateType, aggregate, since, until } = filter;
  if (reason !== undefined && !DEAD_LETTER_REASONS.includes(reason)) {
    throw new RedriveOptionsError('filter.reason', `got ${showValue(reason)}; allowed: ${DEAD_LETTER_REASONS.join(', ')}`);
  }
  if (types !== undefined && (!Array.isArray(types) || types.length === 0 || !types.every(nonEmpty))) {
    throw new RedriveOptionsError('filter.types', `got ${showValue(types)}; allowed: one or more non-empty event types`);
  }
  if (aggregateType !== undefined && !nonEmpty(aggregateType)) {
    throw new RedriveOptionsError('filter.aggregateType', `got ${showValue(aggregateType)}; allowed: a non-empty aggregate type`);
  }
  if (aggregate !== undefined && (!nonEmpty(aggregate?.type) || !nonEmpty(aggregate?.id))) {
    throw new RedriveOptionsError('filter.aggregate', `got ${showValue(aggregate)}; allowed: { type, id }, both non-empty`);
  }
  if (aggregate !== undefined && aggregateType !== undefined && aggregate.type !== aggregateType) {
    throw new RedriveOptionsError(
      'filter.aggregate',
      `is of type ${showValue(aggregate.type)}, but aggregateType is ${showValue(aggregateType)}; allowed: the same type, or only one of them`,
    );
  }
  for (const [field, value] of [
    ['since', since],
    ['until', until],
  ] as const) {
    const given: unknown = value;
    if (given !== undefined && !isDate(given)) {
      // An invalid Date as such (JSON would read it back as null); anything else as what it is: a string is no Date.
      throw new RedriveOptionsError(
        `filter.${field}`,
        `got ${given instanceof Date ? String(given) : showValue(given)}; allowed: a valid Date`,
      );
    }
  }
  if (since !== undefined && until !== undefined && since.getTime() >= until.getTime()) {
    throw new RedriveOptionsError(
      'filter.until',
      `got ${until.toISOString()}, not after since (${since.toISOString()}); allowed: an instant after since (since is inclusive, until exclusive)`,
    );
  }
}

/** Whether one event (its type and time) matches the filter's event fields: `types`, `since`, `until`. */
function eventMatches(event: { readonly eventType?: string; readonly time?: number }, filter: DeadLetterFilter): boolean {
  if (filter.types !== undefined && (event.eventType === undefined || !filter.types.includes(event.eventType))) return false;
  if (filter.since !== undefined && (event.time === undefined || event.time < filter.since.getTime())) return false;
  if (filter.until !== undefined && (event.time === undefined || event.time >= filter.until.getTime())) return false;
  return true;
}

/**
 * Whether a dead letter matches the filter. A field the dead letter does not have (no event type
 * in a malformed message, no time) matches no filter on it. A CloudEvents batch message matches
 * when any one of its events matches the event fields (`types`, `since`, `until`) together: a
 * redrive moves whole messages, and one left behind would keep events the filter asked for in the
 * DLQ (the events of it already applied are duplicates the consumer's inbox skips).
 *
 * @example
 * ```ts
 * if (matchesDeadLetterFilter(describeDeadLetter(message), { types: ['order.placed'] })) keep(message);
 * ```
 */
export function matchesDeadLetterFilter(info: DeadLetterInfo, filter: DeadLetterFilter | undefined): boolean {
  if (filter === undefined) return true;
  if (filter.reason !== undefined && info.reason !== filter.reason) return false;
  if (filter.aggregateType !== undefined && info.aggregateType !== filter.aggregateType) return false;
  if (filter.aggregate !== undefined && (info.aggregateType !== filter.aggregate.type || info.aggregateId !== filter.aggregate.id)) {
    return false;
  }
  return (info.batch ?? [info]).some((event) => eventMatches(event, filter));
}

/** The filter in words, for a summary's heading; `undefined` without one. */
export function describeFilter(filter: DeadLetterFilter | undefined): string | undefined {
  if (filter === undefined) return undefined;
  const parts = [
    filter.reason === undefined ? undefined : `reason ${filter.reason}`,
    filter.types === undefined ? undefined : `type ${filter.types.join(' or ')}`,
    filter.aggregateType === undefined ? undefined : `aggregate type ${filter.aggregateType}`,
    filter.aggregate === undefined ? undefined : `aggregate ${filter.aggregate.type}:${filter.aggregate.id}`,
    filter.since === undefined ? undefined : `since ${filter.since.toISOString()}`,
    filter.until === undefined ? undefined : `before ${filter.until.toISOString()}`,
  ].filter((p) => p !== undefined);
  return parts.length === 0 ? undefined : parts.join(', ');
}
