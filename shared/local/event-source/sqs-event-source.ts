import { randomUUID } from 'node:crypto';
import {
  ChangeMessageVisibilityBatchCommand,
  type ChangeMessageVisibilityBatchCommandOutput,
  DeleteMessageBatchCommand,
  type DeleteMessageBatchCommandOutput,
  type Message,
  ReceiveMessageCommand,
  type ReceiveMessageCommandOutput,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { sharedAbortController } from '../../abort.js';
import { sleep } from '../../backoff.js';
import { MAX_WAIT_TIME_SECONDS } from '../../consumer/poll-options.js';
import { SQS_RECORD_SYSTEM_ATTRIBUTES, toSqsRecords } from './sqs-event.js';

/** The SQS operations the poller uses; an `SQSClient` fits. */
export interface SqsPollerClient {
  send(command: ReceiveMessageCommand, options?: { abortSignal?: AbortSignal }): Promise<ReceiveMessageCommandOutput>;
  send(command: DeleteMessageBatchCommand): Promise<DeleteMessageBatchCommandOutput>;
  send(command: ChangeMessageVisibilityBatchCommand): Promise<ChangeMessageVisibilityBatchCommandOutput>;
}

/** The part of Lambda's context the local SQS event source passes. */
export type SqsInvocationContext = Pick<Context, 'functionName' | 'awsRequestId' | 'getRemainingTimeInMillis'>;

/** An SQS-triggered Lambda handler with `ReportBatchItemFailures`. */
export type SqsHandler = (event: SQSEvent, context: SqsInvocationContext) => Promise<SQSBatchResponse | undefined>;

/** How long before the messages come back the handler's context says its time is up. */
const VISIBILITY_MARGIN_MS = 2_000;

/** What became of one batch: acknowledged records were deleted, failed ones come back after the visibility timeout. */
export interface SqsBatchReport {
  readonly queueArn: string;
  /** When the batch was received (epoch ms). */
  readonly receivedAt: number;
  /** Handled and deleted: only what `DeleteMessageBatch` lists as `Successful`. */
  readonly acknowledged: readonly SQSRecord[];
  readonly failed: readonly SQSRecord[];
  /** Handled, but `DeleteMessageBatch` did not delete them: they come back after the visibility timeout. */
  readonly undeleted: readonly SQSRecord[];
  /** The handler threw (or reported an identifier not in the batch): the whole batch failed. */
  readonly batchFailed: boolean;
}

export interface SqsPollerOptions {
  readonly sqs: SqsPollerClient;
  readonly queue: { readonly url: string; readonly arn: string };
  readonly handler: SqsHandler;
  /**
   * Messages per invocation: 1–10, or up to 10,000 with a `maxBatchingWindowMs`, as a deployed
   * event source on a standard queue takes them. @default 10
   */
  readonly batchSize?: number;
  /**
   * How long to go on receiving after the first message of a batch, until `batchSize` messages
   * are gathered, in ms; as the deployed `MaximumBatchingWindowInSeconds`, which a batch of more
   * than 10 needs. Receives are 10 messages at most each. @default 0: one receive per batch
   */
  readonly maxBatchingWindowMs?: number;
  /**
   * The queue's visibility timeout, in seconds. The handler's context counts down to 2 s before
   * a batch comes back, as a deployed consumer's timeout ends long before its queue's
   * visibility timeout: claims the consumer helper takes lapse before SQS delivers again. A
   * handler that runs on has its batch kept hidden until it answers (its visibility extended
   * every half timeout), so no other invocation gets the batch meanwhile: deployed, the
   * function's timeout would have ended it first.
   */
  readonly visibilityTimeoutSeconds: number;
  /** Receive loops running at once, sharing the handler. @default 1 */
  readonly concurrency?: number;
  /** Long-poll wait per receive, in seconds. @default 5 */
  readonly waitTimeSeconds?: number;
  readonly onBatch?: (report: SqsBatchReport) => void;
  /** Errors of the poller itself (a failing receive or delete); it keeps going. @default ignored */
  readonly onError?: (error: unknown) => void;
}

const RETRY_AFTER_ERROR_MS = 500;

/** SQS's most entries per batch request (receive, delete, change visibility). */
const SQS_BATCH_ENTRIES = 10;

/** `items` in runs of at most {@link SQS_BATCH_ENTRIES}, each with the index of its first item. */
const inChunks = <T>(items: readonly T[]): { readonly start: number; readonly chunk: readonly T[] }[] =>
  Array.from({ length: Math.ceil(items.length / SQS_BATCH_ENTRIES) }, (_, i) => ({
    start: i * SQS_BATCH_ENTRIES,
    chunk: items.slice(i * SQS_BATCH_ENTRIES, (i + 1) * SQS_BATCH_ENTRIES),
  }));

/**
 * A local SQS event source mapping: long-polls a queue and invokes a real Lambda handler with
 * the exact `SQSEvent` shape. With `ReportBatchItemFailures` semantics: only acknowledged
 * messages are deleted; failed ones stay and return after the visibility timeout, and move to
 * the queue's DLQ after `maxReceiveCount` receives. A handler that throws, or reports an empty
 * or unknown identifier, fails the whole batch, as on AWS.
 *
 * @example
 * ```ts
 * const poller = new SqsPoller({ sqs, queue: { url, arn }, handler });
 * poller.start();
 * await poller.stop();
 * ```
 */
export class SqsPoller {
  /** Each receive loop's request and back-off listen to it. */
  private readonly abort = sharedAbortController();
  private loops: Promise<void>[] = [];

  constructor(private readonly options: SqsPollerOptions) {}

  /** Starts the receive loops; returns at once. */
  start(): void {
    if (this.loops.length > 0) return;
    this.loops = Array.from({ length: this.options.concurrency ?? 1 }, () => this.loop());
  }

  /** Stops receiving and waits for the batches in flight to finish. */
  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.all(this.loops);
  }

  private async loop(): Promise<void> {
    const { signal } = this.abort;
    while (!signal.aborted) {
      try {
        await this.pollOnce();
      } catch (error) {
        if (signal.aborted) return;
        this.options.onError?.(error);
        // `sleep` removes its stop listener when it ends: a queue that keeps failing would otherwise add one every time.
        await sleep(RETRY_AFTER_ERROR_MS, signal);
      }
    }
  }

  /**
   * Extends the visibility of a batch in flight every half timeout, until the returned function
   * is called (the batch may then come back as usual): the messages stay hidden while their
   * invocation runs, however long. An extension past `timeUp`, the end its context gave the
   * handler, says so, once.
   */
  private keepHidden(records: readonly SQSRecord[], receivedAt: number, timeUp: number): () => Promise<void> {
    const { sqs, queue } = this.options;
    const seconds = this.options.visibilityTimeoutSeconds;
    let warned = false;
    let extending: Promise<void> = Promise.resolve();
    const timer = setInterval(
      () => {
        if (!warned && Date.now() > timeUp) {
          warned = true;
          this.options.onError?.(
            new Error(
              `the handler of ${queue.url} has run ${((Date.now() - receivedAt) / 1000).toFixed(1)} s on a batch of ${records.length}, past the time its context gave it; its messages are kept hidden until it answers (deployed, the function's timeout ends an invocation long before its queue's visibility timeout)`,
            ),
          );
        }
        extending = Promise.all(
          inChunks(records).map(({ chunk }) =>
            sqs.send(
              new ChangeMessageVisibilityBatchCommand({
                QueueUrl: queue.url,
                Entries: chunk.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle, VisibilityTimeout: seconds })),
              }),
            ),
          ),
        ).then(
          () => {},
          (error: unknown) => this.options.onError?.(error),
        );
      },
      Math.max(100, (seconds * 1000) / 2),
    );
    // An extension still on its way ends before the batch is deleted, so it cannot come after.
    return async () => {
      clearInterval(timer);
      await extending;
    };
  }

  private receive(count: number, waitTimeSeconds: number): Promise<ReceiveMessageCommandOutput> {
    return this.options.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: this.options.queue.url,
        MaxNumberOfMessages: Math.min(count, SQS_BATCH_ENTRIES),
        WaitTimeSeconds: waitTimeSeconds,
        MessageSystemAttributeNames: [...SQS_RECORD_SYSTEM_ATTRIBUTES],
        MessageAttributeNames: ['All'],
      }),
      { abortSignal: this.abort.signal },
    );
  }

  /**
   * Receives one batch: what the first receive brings, and then, within the batching window,
   * more until `batchSize`. Long polls within the window are whole seconds, 20 at most; a quiet queue with
   * less than a second of the window left ends the batch. A stop ends it with what it has.
   */
  private async receiveBatch(): Promise<Message[]> {
    const batchSize = this.options.batchSize ?? SQS_BATCH_ENTRIES;
    const { Messages = [] } = await this.receive(batchSize, this.options.waitTimeSeconds ?? 5);
    const windowEnd = Date.now() + (this.options.maxBatchingWindowMs ?? 0);
    const messages = [...Messages];
    while (messages.length > 0 && messages.length < batchSize && !this.abort.signal.aborted) {
      const left = windowEnd - Date.now();
      if (left <= 0) break;
      const wait = Math.min(MAX_WAIT_TIME_SECONDS, Math.floor(left / 1000));
      let more: Message[];
      try {
        more = (await this.receive(batchSize - messages.length, wait)).Messages ?? [];
      } catch (error) {
        // What was received is handled: it would otherwise wait out its visibility timeout.
        if (this.abort.signal.aborted) break;
        throw error;
      }
      messages.push(...more);
      if (more.length === 0 && wait === 0) break;
    }
    return messages;
  }

  private async pollOnce(): Promise<void> {
    const { sqs, queue, handler } = this.options;
    // Left in the queue, a refused message comes back, and moves to the queue's DLQ after maxReceiveCount receives;
    // on a FIFO queue, the later messages of its group in the batch are left with it, keeping their order.
    const { records, refused } = toSqsRecords(await this.receiveBatch(), queue.arn);
    for (const refusal of refused) this.options.onError?.(refusal);
    if (records.length === 0) return;
    const receivedAt = Date.now();
    let failedIds: Set<string> | undefined;
    try {
      // The handler's time ends a little before the batch would come back.
      const timeUp = receivedAt + this.options.visibilityTimeoutSeconds * 1000 - VISIBILITY_MARGIN_MS;
      const shown = this.keepHidden(records, receivedAt, timeUp);
      let response: SQSBatchResponse | undefined;
      try {
        response = await handler(
          { Records: records },
          {
            functionName: `${queue.url.slice(queue.url.lastIndexOf('/') + 1)}-consumer-local`,
            awsRequestId: randomUUID(),
            getRemainingTimeInMillis: () => Math.max(0, timeUp - Date.now()),
          },
        );
      } finally {
        await shown();
      }
      // As Lambda reads it: no answer, no list or a null list is a batch that fully succeeded.
      const ids = (response?.batchItemFailures ?? []).map((f) => f.itemIdentifier);
      const known = new Set(records.map((r) => r.messageId));
      failedIds = ids.every((id) => typeof id === 'string' && known.has(id)) ? new Set(ids) : undefined;
      if (failedIds === undefined) {
        this.options.onError?.(
          new Error(
            `the handler of ${queue.url} answered batchItemFailures with ids not in its batch (${JSON.stringify(ids)}); as Lambda does, the whole batch counts as failed`,
          ),
        );
      }
    } catch (error) {
      // As Lambda logs a function error: the whole batch failed, and the user must see why.
      this.options.onError?.(error);
      failedIds = undefined;
    }
    const handled = failedIds === undefined ? [] : records.filter((r) => !failedIds.has(r.messageId));
    const failed = failedIds === undefined ? records : records.filter((r) => failedIds.has(r.messageId));
    let acknowledged: SQSRecord[] = [];
    let undeleted: SQSRecord[] = [];
    if (handled.length > 0) {
      const outputs = await Promise.all(
        inChunks(handled).map(async ({ start, chunk }) => {
          const output = await sqs.send(
            new DeleteMessageBatchCommand({
              QueueUrl: queue.url,
              Entries: chunk.map((r, i) => ({ Id: String(start + i), ReceiptHandle: r.receiptHandle })),
            }),
          );
          return output;
        }),
      );
      // Only what SQS lists as deleted is gone; anything else is received again.
      const deleted = new Set(outputs.flatMap((output) => (output.Successful ?? []).map((entry) => entry.Id)));
      acknowledged = handled.filter((_, i) => deleted.has(String(i)));
      undeleted = handled.filter((_, i) => !deleted.has(String(i)));
      if (undeleted.length > 0) {
        const failures = outputs.flatMap((output) => output.Failed ?? []);
        const codes = [...new Set(failures.map((entry) => entry.Code ?? 'unknown'))].join(', ') || 'not listed';
        this.options.onError?.(
          new Error(
            `DeleteMessageBatch on ${queue.url} deleted ${acknowledged.length} of ${handled.length} handled messages (${codes}); the others come back after the visibility timeout`,
          ),
        );
      }
    }
    this.options.onBatch?.({ queueArn: queue.arn, receivedAt, acknowledged, failed, undeleted, batchFailed: failedIds === undefined });
  }
}
