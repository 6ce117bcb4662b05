import { randomUUID } from 'node:crypto';
import { type Message, type MessageAttributeValue, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { isFifoQueueUrl } from '../aws/sqs-queue-url.js';
import { showValue } from '../show-value.js';
import { checkDeadLetterFilter, type DeadLetterFilter, describeFilter, matchesDeadLetterFilter } from './dead-letter-filter.js';
import { describeDeadLetter } from './dead-letter-info.js';
import { type DrainPlan, drainQueue } from './drain-queue.js';
import { RedriveOptionsError } from './errors.js';
import { CLIENTS_ALLOWED, checkClients, checkQueueUrl } from './option-checks.js';
import type { RedriveCommonOptions, RedriveProblem, RedriveSummary } from './types.js';

/** Options of `redriveQueueDlq`: a subscriber's dead-letter queue, and the queue its messages are sent back to as they came. */
export interface QueueDlqRedriveOptions extends RedriveCommonOptions {
  /** The client both queues are read and written through. */
  readonly sqs: SQSClient;
  /** URL of the subscriber's dead-letter queue. */
  readonly queueUrl: string;
  /** URL of the queue the messages came from. */
  readonly targetQueueUrl: string;
  /**
   * Only messages that match are moved; the others are released untouched (visible again, one
   * receive more) and counted in the summary's `unmatched`. In a FIFO DLQ a message that does not
   * match holds back the later messages of its group: they stay (skipped, with the reason), so a
   * group is never moved out of order. @default every message
   */
  readonly filter?: DeadLetterFilter;
}

/** A message to send again: body, attributes and (FIFO) group as it came. */
export interface Planned {
  readonly body: string;
  readonly attributes?: Record<string, MessageAttributeValue>;
  readonly groupId?: string;
}

/**
 * Most bytes of one `SendMessageBatch` (the sum of its messages). SQS raised its limit from
 * 256 KiB to 1 MiB in 2025; 256 KiB holds under both. A larger message is sent alone.
 */
export const MAX_SEND_BATCH_BYTES = 262_144;
const MAX_SEND_BATCH_ENTRIES = 10;

/** Bytes SQS counts for a message: its body plus each attribute's name, data type and value. */
export function sqsMessageSize(body: string, attributes: Record<string, MessageAttributeValue> = {}): number {
  let size = Buffer.byteLength(body);
  for (const [name, value] of Object.entries(attributes)) {
    size += Buffer.byteLength(name) + Buffer.byteLength(value.DataType ?? '');
    if (value.StringValue !== undefined) size += Buffer.byteLength(value.StringValue);
    if (value.BinaryValue !== undefined) size += value.BinaryValue.byteLength;
  }
  return size;
}

/**
 * Splits items into batches of at most 10 and {@link MAX_SEND_BATCH_BYTES} (a larger one alone).
 * In a FIFO queue a batch holds at most one message of a group: SQS answers each entry on its
 * own, so a group's second message in one request could be accepted while its first is refused.
 * A message that does not fit waits for the next batch, and so do the later ones of its group;
 * the order within a group is kept, and messages of other groups fill the batch.
 *
 * @example
 * ```ts
 * for (const batch of sendBatches(items, isFifoQueueUrl(targetQueueUrl))) await send(batch);
 * ```
 */
export function sendBatches<T extends { readonly item: Planned }>(items: readonly T[], fifo: boolean): T[][] {
  const batches: T[][] = [];
  let rest = [...items];
  while (rest.length > 0) {
    const batch: T[] = [];
    const later: T[] = [];
    /** Groups with a message in this batch or held back from it: their later messages wait too. */
    const groups = new Set<string>();
    let bytes = 0;
    for (const entry of rest) {
      const size = sqsMessageSize(entry.item.body, entry.item.attributes);
      const group = fifo ? entry.item.groupId : undefined;
      const fits = batch.length === 0 || (batch.length < MAX_SEND_BATCH_ENTRIES && bytes + size <= MAX_SEND_BATCH_BYTES);
      if (fits && (group === undefined || !groups.has(group))) {
        batch.push(entry);
        bytes += size;
      } else later.push(entry);
      if (group !== undefined) groups.add(group);
    }
    batches.push(batch);
    rest = later;
  }
  return batches;
}

/**
 * Moves a subscriber DLQ's messages back to their source queue: same body, message attributes
 * and (FIFO) message group; each is deleted from the DLQ only after the send succeeded. Sends go
 * in batches of at most 10 messages and 256 KiB, and into a FIFO queue with
 * at most one message of a group each; once a message of a group fails, no later message of that
 * group is sent in the run (it fails too, and stays), so none overtakes it.
 *
 * A FIFO send gets a fresh deduplication id: the original one may still be inside the queue's
 * five-minute window, where SQS would accept the message and silently drop it. A crash between
 * send and delete can therefore deliver a message twice, which the consumer's inbox absorbs.
 *
 * With a `filter`, only the matching messages move; in a FIFO DLQ, not past a message of their
 * group that does not match. A CloudEvents batch message matches when any of its events does, and
 * moves whole; `republished` counts the events the moved messages hold.
 *
 * @example
 * ```ts
 * await redriveQueueDlq({ sqs, queueUrl: dlqUrl, targetQueueUrl: sourceUrl, dryRun: true });
 * await redriveQueueDlq({ sqs, queueUrl: dlqUrl, targetQueueUrl: sourceUrl, filter: { types: ['order.placed'] } });
 * ```
 */
export async function redriveQueueDlq(options: QueueDlqRedriveOptions): Promise<RedriveSummary> {
  checkClients(options, { sqs: CLIENTS_ALLOWED.sqs });
  checkQueueUrl(options.queueUrl, 'queueUrl');
  checkQueueUrl(options.targetQueueUrl, 'targetQueueUrl');
  if (options.targetQueueUrl === options.queueUrl) {
    throw new RedriveOptionsError(
      'targetQueueUrl',
      `is the DLQ itself (got ${showValue(options.targetQueueUrl)}); allowed: the source queue the DLQ serves`,
    );
  }
  // A FIFO DLQ may feed a standard queue (a standard queue on a FIFO topic has a FIFO SNS DLQ); a standard DLQ's
  // messages carry no message group for a FIFO queue.
  if (isFifoQueueUrl(options.targetQueueUrl) && !isFifoQueueUrl(options.queueUrl)) {
    throw new RedriveOptionsError(
      'targetQueueUrl',
      `got ${showValue(options.targetQueueUrl)}, which is a FIFO queue and the DLQ ${showValue(options.queueUrl)} a standard one, whose messages carry no message group; allowed: a standard queue, or a FIFO queue from a FIFO DLQ`,
    );
  }
  checkDeadLetterFilter(options.filter);
  const { filter } = options;
  const fifo = isFifoQueueUrl(options.targetQueueUrl);
  /** FIFO message group → the message of it left in the DLQ for not matching the filter. */
  const leftGroups = new Map<string, string>();
  /** FIFO message group → the message of it that failed in this run. */
  const blockedGroups = new Map<string, string>();
  return drainQueue<Planned>({
    ...options,
    target: options.targetQueueUrl,
    ...(filter === undefined ? {} : { filterText: describeFilter(filter) ?? 'none' }),
    plan: (message: Message): DrainPlan<Planned> => {
      const groupId = message.Attributes?.MessageGroupId;
      if (fifo && groupId === undefined) return { status: 'skip', reason: 'FIFO message without a MessageGroupId' };
      const info = describeDeadLetter(message);
      if (filter !== undefined) {
        // Messages come in group order: one left behind keeps the later ones of its group behind it.
        const leftBehind = groupId === undefined ? undefined : leftGroups.get(groupId);
        if (leftBehind !== undefined) {
          return {
            status: 'skip',
            reason: `matches, but earlier message ${leftBehind} of group ${groupId} does not and stays: moving this one would put it ahead of that one`,
          };
        }
        if (!matchesDeadLetterFilter(info, filter)) {
          if (fifo && groupId !== undefined) leftGroups.set(groupId, message.MessageId ?? '');
          return { status: 'leave' };
        }
      }
      return {
        status: 'republish',
        // A batch message moves whole: its events count as republished (and against the rate).
        units: info.batch?.length ?? 1,
        item: {
          body: message.Body ?? '',
          ...(message.MessageAttributes === undefined ? {} : { attributes: message.MessageAttributes }),
          ...(groupId === undefined ? {} : { groupId }),
        },
      };
    },
    republish: async (items) => {
      const succeeded: string[] = [];
      const failed: RedriveProblem[] = [];
      const fail = (entry: { messageId: string; item: Planned }, reason: string) => {
        failed.push({ id: entry.messageId, reason });
        if (fifo && entry.item.groupId !== undefined) blockedGroups.set(entry.item.groupId, entry.messageId);
      };
      for (const candidates of sendBatches(items, fifo)) {
        // A FIFO group whose message failed sends nothing more in the run: no later message overtakes it.
        const batch = candidates.filter((entry) => {
          const blocker = entry.item.groupId === undefined ? undefined : blockedGroups.get(entry.item.groupId);
          if (blocker !== undefined)
            failed.push({ id: entry.messageId, reason: `not sent: earlier message ${blocker} of group ${entry.item.groupId} failed` });
          return blocker === undefined;
        });
        if (batch.length === 0) continue;
        try {
          const output = await options.sqs.send(
            new SendMessageBatchCommand({
              QueueUrl: options.targetQueueUrl,
              Entries: batch.map(({ item }, i) => ({
                Id: String(i),
                MessageBody: item.body,
                ...(item.attributes === undefined ? {} : { MessageAttributes: item.attributes }),
                ...(fifo ? { MessageGroupId: item.groupId, MessageDeduplicationId: randomUUID() } : {}),
              })),
            }),
          );
          const sent = new Set((output.Successful ?? []).map((ok) => ok.Id));
          const refused = new Map((output.Failed ?? []).map((f) => [f.Id, f]));
          batch.forEach((entry, i) => {
            const failure = refused.get(String(i));
            if (failure !== undefined) fail(entry, `${failure.Code}: ${failure.Message ?? 'send failed'}`);
            else if (sent.has(String(i))) succeeded.push(entry.messageId);
            else fail(entry, 'SQS returned no result for the message');
          });
        } catch (error) {
          // The request as a whole was refused: its messages fail and stay; the run goes on with the next.
          for (const entry of batch) fail(entry, `SendMessageBatch failed: ${(error as Error).message}`);
        }
      }
      return { succeeded, failed };
    },
  });
}
