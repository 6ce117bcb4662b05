import type { LagSummary, LoadCounters, TypeLag } from './stats.js';

/** The figures the live view shows at one moment. */
export interface LiveSnapshot {
  /** Epoch ms. */
  readonly at: number;
  readonly startedAt: number;
  readonly written: number;
  readonly published: number;
  readonly delivered: number;
  readonly lag: LagSummary;
  /** Commit→delivery lag per event type; absent or empty before the first delivery. */
  readonly lagByType?: readonly TypeLag[];
  readonly relay: { readonly invocations: number; readonly failedInvocations: number; readonly batchesSentToOnFailure: number };
  readonly relayDeadLetters: number;
  readonly consumers: readonly {
    readonly name: string;
    readonly delivered: number;
    readonly failed: number;
    readonly deadLetters: number;
  }[];
  /** Present while `--load` runs. */
  readonly load?: LoadCounters & { readonly rate: number };
  /** Present when the config has an archive: events written to it, objects, and messages now in its DLQs. */
  readonly archive?: { readonly archivedEvents: number; readonly objectsWritten: number; readonly deadLetters: number };
}

const number = (n: number): string => n.toLocaleString('en-US');
const perSecond = (now: number, before: number | undefined, seconds: number): string =>
  before === undefined || seconds <= 0 ? '' : ((now - before) / seconds).toFixed(1);
const ms = (value: number): string => (Number.isNaN(value) ? '–' : `${Math.round(value).toLocaleString('en-US')} ms`);

function uptime(milliseconds: number): string {
  const total = Math.floor(milliseconds / 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${Math.floor(total / 3600)}:${pad(Math.floor(total / 60) % 60)}:${pad(total % 60)}`;
}

const deadLetters = (s: LiveSnapshot): number =>
  s.relayDeadLetters + (s.archive?.deadLetters ?? 0) + s.consumers.reduce((sum, c) => sum + c.deadLetters, 0);

/** Which DLQs outside the consumer table hold what: the relay's, and the archive's when there is one. */
const deadLetterDetail = (s: LiveSnapshot): string =>
  `now in DLQs (relay DLQ ${number(s.relayDeadLetters)}${s.archive === undefined ? '' : ` · archive DLQ ${number(s.archive.deadLetters)}`})`;

/**
 * The live view as lines of text: totals and rates of events written, published, delivered
 * and dead-lettered, commit→delivery lag p50/p99 overall and per event type, and one row per consumer. Rates come from
 * the previous snapshot; without one they are left blank.
 */
export function renderLiveView(now: LiveSnapshot, previous?: LiveSnapshot): string[] {
  const seconds = previous === undefined ? 0 : (now.at - previous.at) / 1000;
  const row = (label: string, total: number, before: number | undefined, note = '') =>
    `${label.padEnd(15)}${number(total).padStart(10)}${perSecond(total, before, seconds).padStart(9)}${note === '' ? '' : `   ${note}`}`.trimEnd();
  const lines = [`dynamodb-outbox local stack · up ${uptime(now.at - now.startedAt)} · Ctrl-C stops everything`];
  if (now.load !== undefined) {
    const { rate, sent, succeeded, rejected, errors, skipped } = now.load;
    const behind = skipped > 0 ? ` · skipped ${number(skipped)} (API behind)` : '';
    lines.push(
      `load ${rate}/s: sent ${number(sent)} · 2xx ${number(succeeded)} · 4xx ${number(rejected)} · 5xx/failed ${number(errors)}${behind}`,
    );
  }
  lines.push(
    '',
    `${'events'.padEnd(15)}${'total'.padStart(10)}${'per s'.padStart(9)}`,
    row('written', now.written, previous?.written),
    row('published', now.published, previous?.published),
    row('delivered', now.delivered, previous?.delivered),
    ...(now.archive === undefined
      ? []
      : [
          row(
            'archived',
            now.archive.archivedEvents,
            previous?.archive?.archivedEvents,
            `in ${number(now.archive.objectsWritten)} objects`,
          ),
        ]),
    row('dead-lettered', deadLetters(now), undefined, deadLetterDetail(now)),
    `commit→delivery lag   p50 ${ms(now.lag.p50)} · p99 ${ms(now.lag.p99)}   (last ${number(now.lag.samples)} deliveries)`,
    ...(now.lagByType ?? []).map(
      ({ type, lag }) => `  ${type.padEnd(20)} p50 ${ms(lag.p50)} · p99 ${ms(lag.p99)}   (last ${number(lag.samples)})`,
    ),
    `relay invocations ${number(now.relay.invocations)} · failed ${number(now.relay.failedInvocations)} · batches to on-failure ${number(now.relay.batchesSentToOnFailure)}`,
    '',
    `${'consumer'.padEnd(22)}${'delivered'.padStart(10)}${'failed'.padStart(9)}${'in DLQ'.padStart(9)}`,
    ...now.consumers.map(
      (c) => `${c.name.padEnd(22)}${number(c.delivered).padStart(10)}${number(c.failed).padStart(9)}${number(c.deadLetters).padStart(9)}`,
    ),
  );
  return lines;
}

/** The live view as one line, for output that is not a terminal (logs, CI). */
export function renderLiveLine(now: LiveSnapshot): string {
  const time = new Date(now.at).toISOString().slice(11, 19);
  const skipped = now.load === undefined || now.load.skipped === 0 ? '' : `, skipped ${now.load.skipped} (API behind)`;
  const load =
    now.load === undefined ? '' : ` · load sent ${now.load.sent} (4xx ${now.load.rejected}, 5xx/failed ${now.load.errors}${skipped})`;
  const archived = now.archive === undefined ? '' : ` · archived ${now.archive.archivedEvents}`;
  return `${time} written ${now.written} · published ${now.published} · delivered ${now.delivered}${archived} · dead-lettered ${deadLetters(now)} · lag p50 ${ms(now.lag.p50)} p99 ${ms(now.lag.p99)}${load}`;
}
