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
  /** How long a received message stays hidden from other readers while it is moved. @default 120 */
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

/**
 * Moves messages off a queue until a receive comes back empty (so messages added while it runs
 * are moved too) or `maxMessages` is reached. A message is deleted only after its republish
 * succeeded; messages that failed or were skipped are made visible again at the end, and stay.
 */
export async function drainQueue<T>(options: DrainOptions<T>): Promise<RedriveSummary> {
  checkCommonOptions(options);
  const { sqs, queueUrl } = options;
  const limiter = rateLimiter(options.ratePerSecond);
  const before = await approximateCount(sqs, queueUrl);
  const seen = new Set<string>();
  const held: Message[] = [];
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
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: room,
          WaitTimeSeconds: options.waitTimeSeconds ?? 1,
          VisibilityTimeout: options.visibilityTimeoutSeconds ?? 120,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      );
      // A message seen again came back after its visibility timeout; it is already counted.
      const fresh = Messages.filter((m) => !seen.has(m.MessageId ?? ''));
      held.push(...Messages.filter((m) => seen.has(m.MessageId ?? '')));
      if (fresh.length === 0) break;
      for (const message of fresh) seen.add(message.MessageId ?? '');
      processed += fresh.length;

      const planned: { message: Message; item: T; units: number }[] = [];
      for (const message of fresh) {
        const plan = await options.plan(message);
        if (plan.status === 'skip') {
          skipped.push({ id: message.MessageId ?? '', reason: plan.reason });
          held.push(message);
        } else planned.push({ message, item: plan.item, units: plan.units });
      }
      if (options.dryRun) {
        moved += planned.length;
        republished += planned.reduce((sum, p) => sum + p.units, 0);
        held.push(...planned.map((p) => p.message));
      } else if (planned.length > 0) {
        await limiter.take(planned.reduce((sum, p) => sum + p.units, 0));
        const result = await options.republish(planned.map((p) => ({ messageId: p.message.MessageId ?? '', item: p.item })));
        const ok = new Set(result.succeeded);
        failed.push(...result.failed);
        const done = planned.filter((p) => ok.has(p.message.MessageId ?? ''));
        held.push(...planned.filter((p) => !ok.has(p.message.MessageId ?? '')).map((p) => p.message));
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
    for (const batch of chunks(held, 10)) {
      await sqs.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: queueUrl,
          Entries: batch.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '', VisibilityTimeout: 0 })),
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
