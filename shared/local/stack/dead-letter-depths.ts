import type { SQSClient } from '@aws-sdk/client-sqs';
import { queueCounts } from '../../aws/sqs-queue-counts.js';

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

/** Messages ready, in flight and delayed on a queue, as SQS counts them. */
export async function queueDepth(sqs: Pick<SQSClient, 'send'>, queueUrl: string): Promise<number> {
  const { visible, inFlight, delayed } = await queueCounts(sqs, queueUrl);
  return visible + inFlight + delayed;
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
  const counter = countInBackground(
    count,
    (depths) => {
      latest = depths;
    },
    { intervalMs, now: false },
  );
  return { current: () => latest, stop: counter.stop };
}

/**
 * Runs `count` now (unless `now` is false) and every `intervalMs` in the background, never two at
 * once, reporting each result. A count that fails (the emulator stopping, say) reports nothing,
 * so the last figures stay; the next tick counts again. The timer keeps no process alive.
 */
export function countInBackground<T>(
  count: () => Promise<T>,
  report: (figures: T) => void,
  { intervalMs, now = true }: { intervalMs: number; now?: boolean },
): { stop(): void } {
  let counting = false;
  const tick = () => {
    if (counting) return;
    counting = true;
    count()
      .then(report)
      .catch(() => {})
      .finally(() => {
        counting = false;
      });
  };
  if (now) tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
