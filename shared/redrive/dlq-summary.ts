import type { Message, SQSClient } from '@aws-sdk/client-sqs';
import { errorName } from '../aws/error-name.js';
import { isFifoQueueUrl } from '../aws/sqs-queue-url.js';
import { counted } from '../plural.js';
import { checkDeadLetterFilter, type DeadLetterFilter, describeFilter, matchesDeadLetterFilter } from './dead-letter-filter.js';
import { type DeadLetterEvent, type DeadLetterInfo, describeDeadLetter } from './dead-letter-info.js';
import { HeldMessages } from './held-messages.js';
import {
  CLIENTS_ALLOWED,
  checkClients,
  checkCommonOptions,
  checkQueueUrl,
  checkWaitTimeSeconds,
  visibilityTimeoutOf,
} from './option-checks.js';
import { IN_FLIGHT_LIMIT, queueCounts } from './queue-counts.js';

/** Options of `summarizeDlq`: the dead-letter queue to read, which of its messages to count, and how long to read. */
export interface DlqSummarizeOptions {
  /** The client the queue is read through. */
  readonly sqs: SQSClient;
  /** URL of a relay DLQ or a subscriber's DLQ; which one is told by each message's shape. */
  readonly queueUrl: string;
  /** Count only the dead letters that match (all are read, and all stay). @default every one */
  readonly filter?: DeadLetterFilter;
  /** Stop after reading this many messages. @default until a receive comes back empty */
  readonly maxMessages?: number;
  /** How long each message read stays hidden; renewed while the run lasts, released at its end. @default 120 */
  readonly visibilityTimeoutSeconds?: number;
  /** Long-poll wait per receive; the run ends at the first empty receive. @default 1 */
  readonly waitTimeSeconds?: number;
  /** Aborting it ends the read after the receive in hand; the summary (status `interrupted`) covers what was read. */
  readonly signal?: AbortSignal;
  /** Called after every receive with the messages read so far and the approximate count before the run. */
  readonly onProgress?: (read: number, total: number) => void;
}

/** Dead letters of one reason, event type and aggregate type. */
export interface DeadLetterGroup {
  readonly reason: string;
  /** Absent when the messages carry none (a malformed message, a relay letter of an undecodable slot). */
  readonly eventType?: string;
  readonly aggregateType?: string;
  /**
   * Events of the group: each event of a CloudEvents batch message counts (in the group of its
   * own type); a message without a readable event (malformed, an undecodable slot) counts as one.
   */
  readonly count: number;
  /** Messages that hold the group's events; fewer than `count` where batch messages hold several. */
  readonly messages: number;
  /** Earliest and latest time (ISO 8601) of the group's dead letters, see `timeSource`. */
  readonly firstTime?: string;
  readonly lastTime?: string;
  /** `envelope`: the events' `time`; `sent`: the messages' `SentTimestamp` (no readable envelope); `both`: some of each. */
  readonly timeSource: 'envelope' | 'sent' | 'both';
}

/** What a dead-letter queue holds, grouped; nothing was deleted or moved. */
export interface DlqSummary {
  /** `partial`: SQS would hide no more messages (its in-flight limit) or `maxMessages` was reached; `interrupted`: aborted. */
  readonly status: 'completed' | 'partial' | 'interrupted';
  readonly queueUrl: string;
  /** Approximate messages in the queue before the run (visible, in flight, delayed). */
  readonly before: number;
  /** Messages read (each once). */
  readonly read: number;
  /** Events in the messages read: more than `read` where batch messages hold several (a message without a readable event counts as one). */
  readonly events: number;
  /** Messages read with at least one event that matches the filter (all of them without one). */
  readonly matched: number;
  /** Events that match the filter (all of them without one); the groups' counts add up to it. */
  readonly matchedEvents: number;
  /** The filter in words, when there was one. */
  readonly filter?: string;
  /** Messages read by shape: relay dead letters, subscriber envelopes, malformed ones. */
  readonly kinds: { readonly relay: number; readonly subscriber: number; readonly malformed: number };
  /** Largest group first. */
  readonly groups: readonly DeadLetterGroup[];
  /** The first malformed messages read (at most 10): id and why. */
  readonly malformed: readonly { readonly id: string; readonly problem: string }[];
  readonly notes: readonly string[];
}

const MALFORMED_SAMPLES = 10;

export { IN_FLIGHT_LIMIT } from './queue-counts.js';

interface GroupState {
  reason: string;
  eventType: string | undefined;
  aggregateType: string | undefined;
  count: number;
  messages: number;
  /** The index of the last message counted, so that a batch's events count their message once. */
  lastMessage: number;
  first: number | undefined;
  last: number | undefined;
  sources: Set<'envelope' | 'sent'>;
}

function addTo(groups: Map<string, GroupState>, info: DeadLetterInfo, messageIndex: number): void {
  const key = JSON.stringify([info.reason, info.eventType ?? null, info.aggregateType ?? null]);
  const group = groups.get(key) ?? {
    reason: info.reason,
    eventType: info.eventType,
    aggregateType: info.aggregateType,
    count: 0,
    messages: 0,
    lastMessage: -1,
    first: undefined,
    last: undefined,
    sources: new Set(),
  };
  group.count += 1;
  if (group.lastMessage !== messageIndex) group.messages += 1;
  group.lastMessage = messageIndex;
  if (info.time !== undefined) {
    group.first = group.first === undefined ? info.time : Math.min(group.first, info.time);
    group.last = group.last === undefined ? info.time : Math.max(group.last, info.time);
    group.sources.add(info.timeSource);
  }
  groups.set(key, group);
}

const groupOf = (g: GroupState): DeadLetterGroup => ({
  reason: g.reason,
  ...(g.eventType === undefined ? {} : { eventType: g.eventType }),
  ...(g.aggregateType === undefined ? {} : { aggregateType: g.aggregateType }),
  count: g.count,
  messages: g.messages,
  ...(g.first === undefined ? {} : { firstTime: new Date(g.first).toISOString() }),
  ...(g.last === undefined ? {} : { lastTime: new Date(g.last).toISOString() }),
  timeSource: g.sources.size === 2 ? 'both' : g.sources.has('sent') ? 'sent' : 'envelope',
});

/** A batch's event as a dead letter of its own: the message's fields with the event's type and time. */
function eventInfo(info: DeadLetterInfo, event: DeadLetterEvent): DeadLetterInfo {
  const { batch: _, time: __, ...shared } = info;
  return { ...shared, eventType: event.eventType, timeSource: event.timeSource, ...(event.time === undefined ? {} : { time: event.time }) };
}

const isOverLimit = (error: unknown): boolean => errorName(error) === 'OverLimit';

/**
 * Reads every message of a dead-letter queue without consuming it and groups its events by reason,
 * event type and aggregate type, with counts (of events, and of the messages that hold them) and
 * first/last time. Each message is received with a
 * visibility timeout, kept hidden (renewed) while the run lasts so it is counted once, and made
 * visible again at the end, also after an abort or an error; nothing is deleted. Each message's
 * receive count grows by one.
 *
 * Bounded by what SQS lets one reader hold in flight: past 120,000 messages (standard) a long poll
 * comes back empty, so the summary ends `completed` with a note that it read fewer than the queue
 * held; only a receive refused with `OverLimit` makes it `partial`. A FIFO queue hands out at most {@link IN_FLIGHT_LIMIT}`.fifo` and, while a message
 * of a group is held, none behind it, so on FIFO only the first messages of each group are read (a note says so).
 *
 * @example
 * ```ts
 * const summary = await summarizeDlq({ sqs, queueUrl: relayDlqUrl });
 * console.log(formatDlqSummary(summary));
 * ```
 */
export async function summarizeDlq(options: DlqSummarizeOptions): Promise<DlqSummary> {
  checkClients(options, { sqs: CLIENTS_ALLOWED.sqs });
  checkQueueUrl(options.queueUrl, 'queueUrl');
  checkDeadLetterFilter(options.filter);
  const { sqs, queueUrl, filter, signal } = options;
  checkCommonOptions(options);
  const visibility = visibilityTimeoutOf(options.visibilityTimeoutSeconds);
  checkWaitTimeSeconds(options.waitTimeSeconds);
  const counts = await queueCounts(sqs, queueUrl);
  const before = counts.visible + counts.inFlight + counts.delayed;
  const held = new HeldMessages(sqs, queueUrl, visibility);
  const seen = new Set<string>();
  const groups = new Map<string, GroupState>();
  const kinds = { relay: 0, subscriber: 0, malformed: 0 };
  const malformed: { id: string; problem: string }[] = [];
  const notes: string[] = [];
  let matched = 0;
  let events = 0;
  let matchedEvents = 0;
  let status: DlqSummary['status'] = 'completed';
  const count = (message: Message) => {
    const info = describeDeadLetter(message);
    kinds[info.kind] += 1;
    if (info.kind === 'malformed' && malformed.length < MALFORMED_SAMPLES) {
      malformed.push({ id: message.MessageId ?? '', problem: info.detail ?? 'malformed' });
    }
    // Each event of a batch is filtered and grouped as a dead letter of its own, the message's
    // other fields being shared; the message counts once per group, and once as matched.
    const each = info.batch === undefined ? [info] : info.batch.map((event) => eventInfo(info, event));
    events += each.length;
    const matching = each.filter((event) => matchesDeadLetterFilter(event, filter));
    if (matching.length === 0) return;
    matched += 1;
    matchedEvents += matching.length;
    for (const event of matching) addTo(groups, event, seen.size);
  };
  try {
    for (;;) {
      if (signal?.aborted) {
        status = 'interrupted';
        break;
      }
      const room = options.maxMessages === undefined ? 10 : Math.min(10, options.maxMessages - seen.size);
      if (room <= 0) {
        status = 'partial';
        notes.push(`stopped at maxMessages (${options.maxMessages}); the queue may hold more`);
        break;
      }
      let messages: Message[];
      try {
        messages = await held.receive(room, options.waitTimeSeconds ?? 1);
      } catch (error) {
        if (!isOverLimit(error)) throw error;
        status = 'partial';
        notes.push(
          `SQS refused to hide more messages (OverLimit: at most ${IN_FLIGHT_LIMIT.standard.toLocaleString('en')} in flight on a standard queue, counting other readers'); the groups cover the first ${seen.size} read`,
        );
        break;
      }
      if (messages.length === 0) break;
      for (const message of messages) {
        if (seen.has(message.MessageId ?? '')) continue;
        seen.add(message.MessageId ?? '');
        count(message);
      }
      options.onProgress?.(seen.size, before);
    }
  } finally {
    const unreleased = await held.releaseAll();
    if (unreleased > 0) notes.push(`${counted(unreleased, 'message')} could not be made visible again, and will be within ${visibility} s`);
  }
  if (held.lapsed > 0) {
    notes.push(
      `${counted(held.lapsed, 'message')} became visible during the run (renewal failed: ${held.lastRenewalFailure ?? 'no answer'}) and may have been received by another reader`,
    );
  }
  if (isFifoQueueUrl(queueUrl) && status !== 'interrupted') {
    notes.push(
      `FIFO queue: only the first messages of each message group were read (${seen.size} of about ${before}): SQS hands out no further message of a group while one is in flight, and every message read stays in flight until the end; at most ${IN_FLIGHT_LIMIT.fifo.toLocaleString('en')} are handed out at once`,
    );
  } else if (status === 'completed' && seen.size < before) {
    // Past SQS's in-flight limit a long poll comes back empty, as if the queue were read whole.
    notes.push(
      `read ${seen.size} of about ${before}: the rest were in flight with another reader, delayed, or not handed out because SQS keeps at most about ${IN_FLIGHT_LIMIT.standard.toLocaleString('en')} of a standard queue in flight, and the summary holds every message it reads`,
    );
  }
  const sorted = [...groups.values()].sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
  const filterText = describeFilter(filter);
  return {
    status,
    queueUrl,
    before,
    read: seen.size,
    events,
    matched,
    matchedEvents,
    ...(filterText === undefined ? {} : { filter: filterText }),
    kinds,
    groups: sorted.map(groupOf),
    malformed,
    notes,
  };
}
