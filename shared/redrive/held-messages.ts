import { ChangeMessageVisibilityBatchCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';

const chunks = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, i * size + size));

/** A message kept back in the queue: hidden until `hiddenUntil` (epoch ms) under its latest receipt handle. */
interface Held {
  message: Message;
  hiddenUntil: number;
}

/**
 * The messages a drain keeps back in their queue (skipped, failed, all of them in a dry run, or
 * a batch an abort left untouched): hidden while the run lasts, so they neither come back to be
 * counted twice nor keep a receive from coming back empty, and made visible again at its end.
 *
 * @example
 * ```ts
 * const held = new HeldMessages(sqs, queueUrl, 120);
 * held.hold(message);
 * await held.keepHidden(); // before each receive
 * await held.releaseAll(); // at the end, also after an error or an abort
 * ```
 */
export class HeldMessages {
  readonly #byId = new Map<string, Held>();

  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    private readonly visibilitySeconds: number,
  ) {}

  get size(): number {
    return this.#byId.size;
  }

  /** Keeps a message back, under the receipt handle it was last received with. */
  hold(message: Message): void {
    this.#byId.set(message.MessageId ?? '', { message, hiddenUntil: Date.now() + this.visibilitySeconds * 1000 });
  }

  /** Hides the kept messages again for a whole timeout once half of it has passed. */
  async keepHidden(): Promise<void> {
    const timeoutMs = this.visibilitySeconds * 1000;
    const due = [...this.#byId.values()].filter((h) => h.hiddenUntil - Date.now() < timeoutMs / 2);
    for (const batch of chunks(due, 10)) {
      const hiddenUntil = Date.now() + timeoutMs;
      const output = await this.sqs.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: batch.map((h, i) => ({
            Id: String(i),
            ReceiptHandle: h.message.ReceiptHandle ?? '',
            VisibilityTimeout: this.visibilitySeconds,
          })),
        }),
      );
      // One that could not be hidden again may come back; it is then held under its new handle, not counted again.
      const refused = new Set((output.Failed ?? []).map((f) => f.Id));
      batch.forEach((h, i) => {
        if (!refused.has(String(i))) h.hiddenUntil = hiddenUntil;
      });
    }
  }

  /**
   * Makes every kept message visible again, and returns how many could not be. It never throws:
   * it runs after errors too, where throwing would hide the first error, and a message it could
   * not release becomes visible by itself when its timeout runs out.
   */
  async releaseAll(): Promise<number> {
    let unreleased = 0;
    for (const batch of chunks([...this.#byId.values()], 10)) {
      try {
        const output = await this.sqs.send(
          new ChangeMessageVisibilityBatchCommand({
            QueueUrl: this.queueUrl,
            Entries: batch.map((h, i) => ({ Id: String(i), ReceiptHandle: h.message.ReceiptHandle ?? '', VisibilityTimeout: 0 })),
          }),
        );
        unreleased += output.Failed?.length ?? 0;
      } catch {
        unreleased += batch.length;
      }
    }
    this.#byId.clear();
    return unreleased;
  }
}
