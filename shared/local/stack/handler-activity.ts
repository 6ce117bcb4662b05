import type { SqsHandler } from '../event-source/sqs-event-source.js';

/**
 * Counts the invocations of the subscribers' handlers behind the local SQS event sources: those
 * running now, per subscriber, and those started in all, so a wait on an idle pipeline
 * (`waitForIdle`) sees a handler at work and one that ran between two of its looks.
 *
 * @example
 * ```ts
 * const activity = new HandlerActivity();
 * const counted = activity.counted('billing', handler);
 * activity.running('billing'); // 0 until the event source invokes it
 * ```
 */
export class HandlerActivity {
  private readonly runningBySubscriber = new Map<string, number>();
  private startedCount = 0;

  /** Invocations started so far, of every subscriber's handler. */
  get started(): number {
    return this.startedCount;
  }

  /** Invocations of `subscriber`'s handler running now. */
  running(subscriber: string): number {
    return this.runningBySubscriber.get(subscriber) ?? 0;
  }

  /** `handler`, counted as `subscriber`'s while each invocation runs (until it answers or throws). */
  counted(subscriber: string, handler: SqsHandler): SqsHandler {
    return async (event, context) => {
      this.startedCount++;
      this.runningBySubscriber.set(subscriber, this.running(subscriber) + 1);
      try {
        return await handler(event, context);
      } finally {
        this.runningBySubscriber.set(subscriber, this.running(subscriber) - 1);
      }
    };
  }
}
