import { INSTANT_FORMS, parseInstantText } from '../event-time.js';
import type { DeadLetterFilter } from './dead-letter-filter.js';
import { DEAD_LETTER_REASONS } from './dead-letter-info.js';
import { RedriveOptionsError } from './errors.js';

/** The filter flags, as `util.parseArgs` takes them; `--type` may be given more than once. */
export const FILTER_OPTIONS = {
  reason: { type: 'string' },
  type: { type: 'string', multiple: true },
  'aggregate-type': { type: 'string' },
  aggregate: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
} as const;

/** The filter flags that take a value, with what the value is. */
export const FILTER_VALUE_FLAGS: Readonly<Record<string, string>> = {
  '--reason': 'R',
  '--type': 'T',
  '--aggregate-type': 'A',
  '--aggregate': 'TYPE:ID',
  '--since': 'ISO',
  '--until': 'ISO',
};

/** The filter flags as the usages list them. */
export const FILTER_USAGE = `Filters (dead letters matching all that are given):
  --reason R             ${DEAD_LETTER_REASONS.join(', ')}
  --type T               event type; repeat for several (any of them matches)
  --aggregate-type A     aggregate type
  --aggregate TYPE:ID    one aggregate (split at the first ':')
  --since ISO            from this instant on (inclusive), e.g. 2026-05-01 or 2026-05-01T10:00:00Z
  --until ISO            before this instant (exclusive)
  The time is the event's (envelope \`time\`), or the message's SentTimestamp when it has no
  readable envelope.`;

export interface FilterValues {
  readonly reason?: string | undefined;
  readonly type?: string[] | undefined;
  readonly 'aggregate-type'?: string | undefined;
  readonly aggregate?: string | undefined;
  readonly since?: string | undefined;
  readonly until?: string | undefined;
}

/**
 * The instant a flag names ({@link parseInstantText}), the forms `replay`'s `--from` and `--to`
 * take: a date or a date-time with `Z` or an offset (one without would be read in the machine's
 * time zone), on a real calendar day, hours 00–23.
 */
function instantOf(value: string | undefined, flag: string): Date | undefined {
  if (value === undefined) return undefined;
  const ms = parseInstantText(value);
  if (ms === undefined) throw new RedriveOptionsError(flag, `got ${JSON.stringify(value)}; allowed: ${INSTANT_FORMS}`);
  return new Date(ms);
}

function nonEmpty(value: string | undefined, flag: string, what: string): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === '') throw new RedriveOptionsError(flag, `got ${JSON.stringify(value)}; allowed: ${what}`);
  return value;
}

/**
 * The filter the flags ask for, or `undefined` when none was given. A bad value throws a
 * {@link RedriveOptionsError} on its flag, naming the value and what is allowed.
 *
 * @example
 * ```ts
 * const filter = filterFromArgs({ reason: 'PUBLISH_REJECTED', type: ['order.placed'] });
 * ```
 */
export function filterFromArgs(values: FilterValues): DeadLetterFilter | undefined {
  const { reason } = values;
  if (reason !== undefined && !DEAD_LETTER_REASONS.includes(reason)) {
    throw new RedriveOptionsError('--reason', `got ${JSON.stringify(reason)}; allowed: ${DEAD_LETTER_REASONS.join(', ')}`);
  }
  const types = values.type?.map((t) => nonEmpty(t, '--type', 'an event type, e.g. order.placed') as string);
  const aggregateType = nonEmpty(values['aggregate-type'], '--aggregate-type', 'an aggregate type, e.g. order');
  let aggregate: { type: string; id: string } | undefined;
  if (values.aggregate !== undefined) {
    const at = values.aggregate.indexOf(':');
    const type = values.aggregate.slice(0, at);
    const id = values.aggregate.slice(at + 1);
    if (at < 0 || type.trim() === '' || id === '') {
      throw new RedriveOptionsError(
        '--aggregate',
        `got ${JSON.stringify(values.aggregate)}; allowed: TYPE:ID, both non-empty, e.g. order:o-123`,
      );
    }
    if (aggregateType !== undefined && aggregateType !== type) {
      throw new RedriveOptionsError(
        '--aggregate',
        `got ${JSON.stringify(values.aggregate)} with --aggregate-type ${JSON.stringify(aggregateType)}; allowed: the same type in both, or only one of them`,
      );
    }
    aggregate = { type, id };
  }
  const since = instantOf(values.since, '--since');
  const until = instantOf(values.until, '--until');
  if (since !== undefined && until !== undefined && since.getTime() >= until.getTime()) {
    throw new RedriveOptionsError(
      '--until',
      `got ${JSON.stringify(values.until)}, not after --since ${JSON.stringify(values.since)}; allowed: a later instant`,
    );
  }
  const filter: DeadLetterFilter = {
    ...(reason === undefined ? {} : { reason }),
    ...(types === undefined ? {} : { types }),
    ...(aggregateType === undefined ? {} : { aggregateType }),
    ...(aggregate === undefined ? {} : { aggregate }),
    ...(since === undefined ? {} : { since }),
    ...(until === undefined ? {} : { until }),
  };
  return Object.keys(filter).length === 0 ? undefined : filter;
}
