import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { RedriveOptionsError } from './errors.js';
import { rateLimiter } from './rate-limit.js';
import type { RedriveCommonOptions, RedriveProblem, RedriveSummary } from './types.js';

/** What to do with one source message. `units` counts the events it republishes (for the rate limit). */
export type DrainPlan<T> =
  | { readonly status: 'republish'; readonly item: T; readonly units: number }
  | { readonly status: 'skip'; readonly reason: string };

/** How a batch of planned messages was republished, by message id. */
export interface RepublishResult {
  readonly succeeded: readonly string[];
  readonly failed: readonly RedriveProblem[];
}

export interface DrainOptions<T> extends RedriveCommonOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly target: string;
  plan(message: Message): Promise<DrainPlan<T>> | DrainPlan<T>;
  republish(items: readonly { readonly messageId: string; readonly item: T }[]): Promise<RepublishResult>;
  /**
   * How long a received message stays hidden from other readers while it is moved; the messages
   * kept back (skipped, failed, or all in a dry run) are hidden again before half of it has passed,
   * for as long as the run lasts. @default 120
   */
  readonly visibilityTimeoutSeconds?: number;
  /** Long-poll wait per receive; the run ends at the first empty receive. @default 1 */
  readonly waitTimeSeconds?: number;
}

/** Approximate messages on a queue: visible, in flight and delayed. */
export async function approximateCount(sqs: SQSClient, queueUrl: string): Promise<number> {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
    }),
  );
  return (
    Number(Attributes.ApproximateNumberOfMessages ?? 0) +
    Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0) +
    Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0)
  );
}

const chunks = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, i * size + size));

export function checkCommonOptions(options: RedriveCommonOptions): void {
  if (options.maxMessages !== undefined && (!Number.isInteger(options.maxMessages) || options.maxMessages < 1)) {
    throw new RedriveOptionsError('maxMessages', `got ${options.maxMessages}; allowed: a positive whole number`);
  }
}

/** A message kept back in the queue: hidden until `hiddenUntil` (epoch ms) under its latest receipt handle. */
interface Held {
  message: Message;
  hiddenUntil: number;
}

/** Visibility timeouts in seconds: SQS takes 0 to 43,200, and 0 would hide nothing. */
const VISIBILITY_RANGE = [1, 43_200] as const;

/**
 * Moves messages off a queue until a receive comes back empty (so messages added while it runs
 * are moved too) or `maxMessages` is reached. A message is deleted only after its republish
 * succeeded. Messages that failed or were skipped are counted once and kept: hidden again while
 * the run lasts (so they neither come back to be counted twice nor keep a receive from coming back
 * empty), and made visible again at the end.
 */
export async function drainQueue<T>(options: DrainOptions<T>): Promise<RedriveSummary> {
  checkCommonOptions(options);
  const visibility = options.visibilityTimeoutSeconds ?? 120;
  if (!Number.isInteger(visibility) || visibility < VISIBILITY_RANGE[0] || visibility > VISIBILITY_RANGE[1]) {
    throw new RedriveOptionsError(
      'visibilityTimeoutSeconds',
      `got ${visibility}; allowed: a whole number of seconds from ${VISIBILITY_RANGE[0]} to ${VISIBILITY_RANGE[1]}`,
    );
  }
  const { sqs, queueUrl } = options;
  const limiter = rateLimiter(options.ratePerSecond);
  const before = await approximateCount(sqs, queueUrl);
  const seen = new Set<string>();
  const held = new Map<string, Held>();
  const hold = (message: Message) => held.set(message.MessageId ?? '', { message, hiddenUntil: Date.now() + visibility * 1000 });
  /** Hides the kept messages again for a whole timeout once half of it has passed. */
  const keepHidden = async () => {
    const due = [...held.values()].filter((h) => h.hiddenUntil - Date.now() < (visibility * 1000) / 2);
    for (const batch of chunks(due, 10)) {
      const hiddenUntil = Date.now() + visibility * 1000;
      const output = await sqs.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: queueUrl,
          Entries: batch.map((h, i) => ({ Id: String(i), ReceiptHandle: h.message.ReceiptHandle ?? '', VisibilityTimeout: visibility })),
        }),
      );
      // One that could not be hidden again may come back; it is then held under its new handle, not counted again.
      const refused = new Set((output.Failed ?? []).map((f) => f.Id));
      batch.forEach((h, i) => {
        if (!refused.has(String(i))) h.hiddenUntil = hiddenUntil;
      });
    }
  };
  const failed: RedriveProblem[] = [];
  const skipped: RedriveProblem[] = [];
  let processed = 0;
  let moved = 0;
  let republished = 0;
  const progress = () => options.onProgress?.({ processed, total: before, moved, failed: failed.length, skipped: skipped.length });

  try {
    for (;;) {
      const room = options.maxMessages === undefined ? 10 : Math.min(10, options.maxMessages - processed);
      if (room <= 0) break;
      await keepHidden();
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: room,
          WaitTimeSeconds: options.waitTimeSeconds ?? 1,
          VisibilityTimeout: visibility,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      );
      // Only an empty receive ends the run: one of only kept messages says nothing of the messages behind them.
      if (Messages.length === 0) break;
      // A message seen again came back after its visibility timeout: it is already counted, and is kept hidden.
      const fresh = Messages.filter((m) => !seen.has(m.MessageId ?? ''));
      for (const message of Messages) if (seen.has(message.MessageId ?? '')) hold(message);
      if (fresh.length === 0) continue;
      for (const message of fresh) seen.add(message.MessageId ?? '');
      processed += fresh.length;

      const planned: { message: Message; item: T; units: number }[] = [];
      for (const message of fresh) {
        const plan = await options.plan(message);
        if (plan.status === 'skip') {
          skipped.push({ id: message.MessageId ?? '', reason: plan.reason });
          hold(message);
        } else planned.push({ message, item: plan.item, units: plan.units });
      }
      if (options.dryRun) {
        moved += planned.length;
        republished += planned.reduce((sum, p) => sum + p.units, 0);
        for (const p of planned) hold(p.message);
      } else if (planned.length > 0) {
        await limiter.take(planned.reduce((sum, p) => sum + p.units, 0));
        const result = await options.republish(planned.map((p) => ({ messageId: p.message.MessageId ?? '', item: p.item })));
        const ok = new Set(result.succeeded);
        failed.push(...result.failed);
        const done = planned.filter((p) => ok.has(p.message.MessageId ?? ''));
        for (const p of planned) if (!ok.has(p.message.MessageId ?? '')) hold(p.message);
        if (done.length > 0) {
          const deleted = await sqs.send(
            new DeleteMessageBatchCommand({
              QueueUrl: queueUrl,
              Entries: done.map((p, i) => ({ Id: String(i), ReceiptHandle: p.message.ReceiptHandle ?? '' })),
            }),
          );
          for (const f of deleted.Failed ?? []) {
            const message = done[Number(f.Id)]?.message;
            failed.push({ id: message?.MessageId ?? '', reason: `republished, but not deleted from the source (${f.Code}: ${f.Message})` });
          }
          moved += done.length - (deleted.Failed?.length ?? 0);
          republished += done.reduce((sum, p) => sum + p.units, 0);
        }
      }
      progress();
    }
  } finally {
    for (const batch of chunks([...held.values()], 10)) {
      await sqs.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: queueUrl,
          Entries: batch.map((h, i) => ({ Id: String(i), ReceiptHandle: h.message.ReceiptHandle ?? '', VisibilityTimeout: 0 })),
        }),
      );
    }
  }
  const after = await approximateCount(sqs, queueUrl);
  return {
    status: options.dryRun ? 'dry-run' : 'completed',
    source: queueUrl,
    target: options.target,
    before,
    after,
    processed,
    moved,
    republished,
    failed,
    skipped,
  };
}
