import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';

/** Messages in each DLQ: the relay's, and each subscriber's by subscription name. */
export interface DeadLetterDepths {
  readonly relay: number;
  readonly subscribers: Readonly<Record<string, number>>;
}

/** The DLQs to count, by their URLs. */
export interface DeadLetterQueues {
  readonly relay: string;
  readonly subscribers: ReadonlyArray<readonly [name: string, url: string]>;
}

/** Counts kept current in the background, for a reader that cannot wait (the live view). */
export interface DeadLetterDepthWatch {
  /** The figures of the last count. */
  current(): DeadLetterDepths;
  stop(): void;
}

const COUNTED = ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'] as const;

/** Messages ready, in flight and delayed on a queue, as SQS counts them. */
export async function queueDepth(sqs: Pick<SQSClient, 'send'>, queueUrl: string): Promise<number> {
  const { Attributes = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: [...COUNTED] }));
  return COUNTED.reduce((sum, name) => sum + Number(Attributes[name] ?? 0), 0);
}

/**
 * Counts the DLQs once, then every `intervalMs` in the background (never two counts at once), so
 * the live view, which draws synchronously, shows figures at most that old. A count that fails
 * (the emulator stopping, say) leaves the last figures; the next one tries again.
 *
 * @example
 * ```ts
 * const watch = await watchDeadLetterDepths(clients.sqs, { relay: dlqUrl, subscribers: [['billing', billingDlqUrl]] });
 * watch.current(); // { relay: 0, subscribers: { billing: 0 } }
 * ```
 */
export async function watchDeadLetterDepths(
  sqs: Pick<SQSClient, 'send'>,
  queues: DeadLetterQueues,
  intervalMs = 1000,
): Promise<DeadLetterDepthWatch> {
  const count = async (): Promise<DeadLetterDepths> => {
    const [relay, ...subscribers] = await Promise.all(
      [queues.relay, ...queues.subscribers.map(([, url]) => url)].map((url) => queueDepth(sqs, url)),
    );
    return {
      relay: relay as number,
      subscribers: Object.fromEntries(queues.subscribers.map(([name], i) => [name, subscribers[i] as number])),
    };
  };
  let latest = await count();
  let counting = false;
  const timer = setInterval(() => {
    if (counting) return;
    counting = true;
    count()
      .then((depths) => {
        latest = depths;
      })
      // The figures stay as they were; the next tick counts again.
      .catch(() => {})
      .finally(() => {
        counting = false;
      });
  }, intervalMs);
  timer.unref();
  return { current: () => latest, stop: () => clearInterval(timer) };
}
