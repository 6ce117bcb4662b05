import { ChangeMessageVisibilityBatchCommand, type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { counted } from '../plural.js';

const chunks = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, i * size + size));

/**
 * What a held message needs to be hidden again and released: its latest receipt handle, and when
 * its visibility runs out (epoch ms). Not the message itself: its body and attributes (up to 1 MiB)
 * would stay in memory for the whole run, for every message a dry run sees.
 */
interface Held {
  readonly receiptHandle: string;
  hiddenUntil: number;
}

/**
 * The messages a drain holds in its queue: the batch in hand until it is deleted, and the ones kept
 * back (skipped, failed, all of them in a dry run, or a batch an abort or an error left untouched).
 * From the first receive until {@link HeldMessages.releaseAll}, a timer hides them again before
 * their visibility runs out, whatever the run is waiting on (a rate-limit wait, a slow republish),
 * so they neither come back to be counted twice, nor reach another reader, nor keep a receive from
 * coming back empty. At the end they are made visible again.
 *
 * @example
 * ```ts
 * const held = new HeldMessages(sqs, queueUrl, 120);
 * const messages = await held.receive(10, 1); // hidden, and renewed, from now on
 * held.forget(deletedIds); // deleted: nothing left to hide
 * await held.releaseAll(); // at the end, also after an error or an abort
 * ```
 */
export class HeldMessages {
  /**
   * By message id, in the order their visibility runs out: every entry is (re)inserted with now +
   * one timeout, so a renewal reads only the due entries at the front instead of the whole map. (A
   * renewal and a receive in flight together can invert two entries by the length of a call; the
   * margin below covers it.)
   */
  readonly #byId = new Map<string, Held>();
  readonly #timeoutMs: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #renewing: Promise<void> | undefined;
  #stopped = false;
  #lapsed = 0;
  #lastFailure: string | undefined;

  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    visibilitySeconds: number,
  ) {
    this.#timeoutMs = visibilitySeconds * 1000;
  }

  /** The messages held now (kept back, or in hand). */
  get size(): number {
    return this.#byId.size;
  }

  /** Held messages whose visibility ran out during the run because it could not be renewed. */
  get lapsed(): number {
    return this.#lapsed;
  }

  /** The last reason a renewal failed (`CODE: message`), if one did. */
  get lastRenewalFailure(): string | undefined {
    return this.#lastFailure;
  }

  /**
   * Receives up to `maxMessages` messages (all their attributes) hidden for the timeout, and holds
   * them: the one receive every reader of a drain makes.
   */
  async receive(maxMessages: number, waitTimeSeconds: number): Promise<Message[]> {
    // Taken before the receive: SQS's visibility deadline is never earlier than this plus the timeout.
    const receivedAt = Date.now();
    const { Messages = [] } = await this.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: this.queueUrl,
        MaxNumberOfMessages: maxMessages,
        WaitTimeSeconds: waitTimeSeconds,
        VisibilityTimeout: this.#timeoutMs / 1000,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    this.track(Messages, receivedAt);
    return Messages;
  }

  /**
   * Holds received messages under the receipt handles they came with, hidden until `receivedAt`
   * (taken before the receive was sent, so never later than SQS's own deadline) plus the timeout.
   * A message held before (seen again) moves to its new handle. Starts the renewal timer.
   */
  track(messages: readonly Message[], receivedAt: number): void {
    for (const message of messages) {
      const id = message.MessageId ?? '';
      this.#byId.delete(id);
      this.#byId.set(id, { receiptHandle: message.ReceiptHandle ?? '', hiddenUntil: receivedAt + this.#timeoutMs });
    }
    if (this.#timer === undefined && !this.#stopped) this.#schedule();
  }

  /** Stops holding messages that are gone from the queue (deleted), or left to their timeout. */
  forget(messageIds: readonly string[]): void {
    for (const id of messageIds) this.#byId.delete(id);
  }

  /**
   * Renews every 1/4 timeout the messages with less than half of it left: each is renewed with at
   * least a quarter of its timeout to spare, and one the renewal missed is tried again before it
   * runs out. The timer is unref'd: it never keeps the process alive on its own.
   */
  #schedule(): void {
    this.#timer = setTimeout(() => {
      this.#renewing = this.#renewDue().finally(() => {
        this.#renewing = undefined;
        if (!this.#stopped) this.#schedule();
      });
    }, this.#timeoutMs / 4);
    this.#timer.unref?.();
  }

  async #renewDue(): Promise<void> {
    const now = Date.now();
    const due: [string, Held][] = [];
    for (const [id, held] of this.#byId) {
      if (held.hiddenUntil - now >= this.#timeoutMs / 2) break;
      if (held.hiddenUntil <= now) {
        // Visible again already: SQS refuses to hide it under this handle, and if this run
        // receives it again, `track` holds it under the new one.
        this.#byId.delete(id);
        this.#lapsed += 1;
      } else due.push([id, held]);
    }
    for (const batch of chunks(due, 10)) {
      const hiddenUntil = Date.now() + this.#timeoutMs;
      try {
        const output = await this.sqs.send(
          new ChangeMessageVisibilityBatchCommand({
            QueueUrl: this.queueUrl,
            Entries: batch.map(([, held], i) => ({
              Id: String(i),
              ReceiptHandle: held.receiptHandle,
              VisibilityTimeout: this.#timeoutMs / 1000,
            })),
          }),
        );
        const refused = new Map((output.Failed ?? []).map((f) => [f.Id, `${f.Code}: ${f.Message}`]));
        batch.forEach(([id, held], i) => {
          // Forgotten (deleted) or received again under a new handle while the call was out: nothing to do.
          if (this.#byId.get(id) !== held) return;
          const reason = refused.get(String(i));
          // A refused one stays due: it is tried again at the next tick, until it runs out.
          if (reason !== undefined) this.#lastFailure = reason;
          else {
            held.hiddenUntil = hiddenUntil;
            this.#byId.delete(id);
            this.#byId.set(id, held);
          }
        });
      } catch (error) {
        // The whole call failed (network, throttling): all of the batch stays due for the next tick.
        this.#lastFailure = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      }
    }
  }

  /**
   * Stops the renewal (waiting for one in flight, which would otherwise hide a message again after
   * its release), makes every held message visible again, and returns how many could not be. It
   * never throws: it runs after errors too, where throwing would hide the first error, and a message
   * it could not release becomes visible by itself when its timeout runs out.
   */
  async releaseAll(): Promise<number> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#renewing;
    let unreleased = 0;
    for (const batch of chunks([...this.#byId.values()], 10)) {
      try {
        const output = await this.sqs.send(
          new ChangeMessageVisibilityBatchCommand({
            QueueUrl: this.queueUrl,
            Entries: batch.map((held, i) => ({ Id: String(i), ReceiptHandle: held.receiptHandle, VisibilityTimeout: 0 })),
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

  /**
   * What the summary must say of the held messages, after {@link HeldMessages.releaseAll} (its
   * result is `unreleased`): those whose visibility lapsed during the run, and those not released.
   */
  notes(unreleased: number): string[] {
    return [
      ...(this.#lapsed > 0
        ? [
            `${counted(this.#lapsed, 'held message')} became visible during the run, as the visibility timeout could not be renewed (${this.#lastFailure ?? 'no answer in time'}), and may have been received by another reader`,
          ]
        : []),
      ...(unreleased > 0
        ? [`${counted(unreleased, 'kept message')} could not be made visible again, and will be within ${this.#timeoutMs / 1000} s`]
        : []),
    ];
  }
}
