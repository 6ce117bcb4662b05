import type { ConsumerMessage } from './types.js';

/**
 * Message indices by FIFO group, in first-seen order; a message of a standard queue is a group of
 * its own, with its copies: SQS delivers at least once, so a batch (one Lambda gathers over a
 * batching window) may hold one message twice, under one message id. Run in turn, the second
 * copy finds the event done (a duplicate), where run beside the first it would run the handler
 * again, or meet the first's claim and fail a message that was handled.
 */
export function groupsOf(messages: readonly ConsumerMessage[]): number[][] {
  const groups = new Map<string, number[]>();
  messages.forEach((message, index) => {
    const key = message.messageGroupId === undefined ? `m${message.messageId}` : `g${message.messageGroupId}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [index]);
    else group.push(index);
  });
  return [...groups.values()];
}

/** One worker of a pool: it takes items in turn, then ends (as `commit: 'batch'` commits its last group). */
export interface PoolWorker<T> {
  run(item: T): Promise<void>;
  end?(): Promise<void>;
}

/** Runs `items` on at most `concurrency` workers, each made by `worker` and taking the next item when it is free. */
export async function runPool<T>(items: readonly T[], concurrency: number, worker: () => PoolWorker<T>): Promise<void> {
  let next = 0;
  const work = async (): Promise<void> => {
    const own = worker();
    while (next < items.length) {
      const item = items[next++] as T;
      await own.run(item);
    }
    await own.end?.();
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, work));
}
