import type { SQSClient } from '@aws-sdk/client-sqs';
import { type QueueCounts, queueCounts } from '../../aws/sqs-queue-counts.js';
import { sleep } from '../../backoff.js';
import { errorMessage } from '../../error-message.js';
import { counted } from '../../plural.js';
import { LocalStackError } from '../errors.js';
import type { StreamRunnerProgress } from '../event-source/types.js';
import type { LocalActivity } from './types.js';

/** How often the wait looks at the parts: well within the relay's poll of a shard at its end (250 ms). */
const LOOK_INTERVAL_MS = 50;

/**
 * The shortest timeout `waitForIdle` takes. It resolves only on two idle looks in a row, and each
 * look waits for the relay to list the stream's shards after it began, which the relay does every
 * second: two looks take up to two seconds on an idle stack (one, at best), so a shorter timeout
 * could end a wait on an idle pipeline, and 0 could never end one but in `NOT_IDLE`. (`receive()`
 * and `waitForArchived()` take 0: one look is all they need.)
 */
export const MIN_IDLE_TIMEOUT_MS = 2_000;

/** What `waitForIdle` watches: the stack's parts, its SQS client, the queues handlers read, and the stop. */
export interface IdleWatch {
  readonly activity: LocalActivity;
  readonly sqs: SQSClient;
  /** Each subscriber whose queue a `handler` reads, with its queue's URL. */
  readonly handledQueues: readonly { readonly subscriber: string; readonly url: string }[];
  /** Aborted as `stop()` begins. */
  readonly signal: AbortSignal;
  /** The error the wait ends with when the stack stops under it. */
  readonly stopped: () => LocalStackError;
}

/** One look at every part: whether all was idle, what was busy, and a mark of the progress made so far. */
interface Look {
  readonly idle: boolean;
  /**
   * What was busy, for the timeout's message. The relay is named when it is not done with the
   * records written since the wait began: the last look, cut short by the timeout, may not have
   * given it the time to list and read its shards again.
   */
  readonly busy: readonly string[];
  readonly progress: string;
}

/**
 * Resolves once, at one moment, the whole pipeline is idle: the relay (and the processor) done
 * with every stream record written before it, and each queue a handler reads empty (nothing
 * visible, in flight or delayed) with no invocation of its handler running. Rejects at
 * `timeoutMs` with `NOT_IDLE`, naming what was still busy, or with `watch.stopped()` at a stop.
 *
 * Why two looks. A look begins at a moment S and first waits for every shard to have been read
 * to its end, with nothing pending, by a read begun after S: every record written before S has
 * then been done with, its events published (the emulator's SNS puts them on the queues within
 * the publish). Then it reads the queues and the handlers. One idle look is not enough: a
 * handler that writes to the outbox, or a write of the test's own that lands meanwhile, puts a
 * record on the stream after S that this look does not see. So the wait resolves only on two
 * idle looks in a row between which nothing moved: no record read, no relay invocation, no
 * record done with or event published by the processor, no handler invocation started. Then,
 * at the second look's S, the relay had nothing pending and read nothing new (so it had done
 * with every record written before S), the processor had done with as many, and the queues,
 * empty at both looks' reads with no handler started in between, held nothing: a message that
 * arrived in between would still be there, or would have started a handler.
 */
export async function waitUntilIdle(watch: IdleWatch, timeoutMs: number): Promise<void> {
  const began = Date.now();
  const deadline = began + timeoutMs;
  let last: Look | undefined;
  for (;;) {
    const look = await lookOnce(watch, deadline, began);
    if (look.idle && last?.idle === true && last.progress === look.progress) return;
    if (Date.now() >= deadline) throw notIdle(look, last, timeoutMs);
    last = look;
    await pause(watch, deadline);
  }
}

/** Waits one look interval (less at the deadline), or ends the wait with `watch.stopped()` when the stack stops. */
async function pause(watch: IdleWatch, deadline: number): Promise<void> {
  await sleep(Math.max(0, Math.min(LOOK_INTERVAL_MS, deadline - Date.now())), watch.signal);
  if (watch.signal.aborted) throw watch.stopped();
}

async function lookOnce(watch: IdleWatch, deadline: number, began: number): Promise<Look> {
  const since = Date.now();
  // The relay first, polled until a read begun after `since` found each shard at its end (or the deadline).
  let relay = watch.activity.relay();
  while (relayBusy(relay, since).length > 0 && Date.now() < deadline) {
    await pause(watch, deadline);
    relay = watch.activity.relay();
  }
  const processor = watch.activity.processor();
  const queues = await Promise.all(watch.handledQueues.map((queue) => queueBusy(watch, queue)));
  const { handlers } = watch.activity;
  // A count, not positions per shard: the processor counts each record once (one read again after its lease
  // was lost and taken back is not counted again), and the local stack runs one processor, on the stream the
  // relay reads to its end, each shard in order. So once the relay has read every record written before this look began, a count
  // as high as the relay's means the processor is done with each of them too.
  const others = [
    ...(processor !== undefined && processor.recordsProcessed < relay.recordsRead
      ? [`the processor: done with ${processor.recordsProcessed} of the ${counted(relay.recordsRead, 'stream record')} read`]
      : []),
    ...queues.flatMap((problem, i) => {
      const { subscriber } = watch.handledQueues[i]!;
      const running = handlers.running(subscriber);
      const parts = [
        ...(problem === undefined ? [] : [problem]),
        ...(running > 0 ? [`${counted(running, 'handler invocation')} running`] : []),
      ];
      return parts.length === 0 ? [] : [`queue ${JSON.stringify(subscriber)}: ${parts.join(', ')}`];
    }),
  ];
  const progress = [relay.recordsRead, relay.invocations, processor?.recordsProcessed, processor?.eventsPublished, handlers.started].join(
    '/',
  );
  const idle = relayBusy(relay, since).length === 0 && others.length === 0;
  return { idle, busy: [...relayBusy(relay, began), ...others], progress };
}

/** What of the relay's event source is not yet known to be done with the records written before `since`. */
function relayBusy(relay: StreamRunnerProgress, since: number): string[] {
  const busy: string[] = [];
  if (relay.refreshedAt <= since) busy.push("the relay: has not listed the stream's shards since the wait began (it does every second)");
  for (const { shardId, status, pending, drainedSince } of relay.shards) {
    if (status === 'waiting') busy.push(`the relay: shard ${shardId} waits for its parent shard to be read to its end`);
    else if (pending > 0) busy.push(`the relay: shard ${shardId} has ${counted(pending, 'record')} read and not yet done with`);
    // Strictly after: a read begun in the same millisecond may have begun before a write that ended in it.
    else if (status === 'reading' && drainedSince <= since)
      busy.push(`the relay: shard ${shardId} not read to its end since the wait began`);
  }
  return busy;
}

/**
 * Messages on a queue (visible, in flight, delayed), in words; `undefined` when it has none. A
 * queue it cannot read ends the wait with `NOT_IDLE` naming it, the SDK's error as its `cause`:
 * whether it is idle cannot be known.
 */
async function queueBusy(watch: IdleWatch, queue: { readonly subscriber: string; readonly url: string }): Promise<string | undefined> {
  let counts: QueueCounts;
  try {
    counts = await queueCounts(watch.sqs, queue.url, watch.signal);
  } catch (error) {
    if (watch.signal.aborted) throw watch.stopped();
    throw new LocalStackError(
      'NOT_IDLE',
      `waitForIdle() could not read the messages on queue ${JSON.stringify(queue.subscriber)} (${queue.url}): ${errorMessage(error)}; allowed: a queue the stack's SQS client can read (GetQueueAttributes), as it can while the stack runs`,
      { cause: error },
    );
  }
  const { visible, inFlight, delayed } = counts;
  if (visible + inFlight + delayed === 0) return undefined;
  return `${counted(visible, 'message')} visible, ${inFlight} in flight, ${delayed} delayed`;
}

/**
 * The `NOT_IDLE` error of a wait that timed out, naming what its last look found busy, or, when
 * it found nothing busy, why that look did not end the wait: the relay had not read its shards to
 * their end again since it began, it was the only look, the look before it found something busy,
 * or something moved between the two.
 */
function notIdle(look: Look, last: Look | undefined, timeoutMs: number): LocalStackError {
  const what =
    look.busy.length > 0
      ? `still busy: ${look.busy.join('; ')}`
      : !look.idle
        ? 'nothing was busy at its last look, but the relay had not read its shards to their end again since that look began'
        : last === undefined
          ? 'nothing was busy at its only look, but idle takes two idle looks in a row with nothing moved between them, and the timeout came before the second'
          : !last.idle
            ? 'nothing was busy at its last look, but the look before found something busy, and the timeout came before a second idle look'
            : 'nothing was busy at its last two looks, but something had moved between them (a record read, a relay invocation, a record done with or an event published by the processor, a handler invoked)';
  return new LocalStackError(
    'NOT_IDLE',
    `waitForIdle() timed out after ${timeoutMs} ms; ${what}; allowed: a longer timeoutMs, once what is busy can end (a handler that fails until its messages reach the DLQ takes maxReceiveCount × the visibility timeout)`,
  );
}
