import {
  InternalErrorException,
  PublishBatchCommand,
  type PublishBatchCommandOutput,
  type PublishBatchRequestEntry,
  type SNSClient,
  ThrottledException,
} from '@aws-sdk/client-sns';
import type { PublishBatchClient } from '../../shared/relay/index.js';
import { seededRandom } from './seeded-random.js';

/** Share of requests and entries that fail, by kind; decided by a seeded generator so runs repeat. */
export interface FaultPlan {
  /** Whole requests rejected with throttling. */
  readonly throttledRequests: number;
  /** Whole requests failing with a 500. */
  readonly failedRequests: number;
  /** Entries reported failed without being published. */
  readonly failedEntries: number;
  /** Entries published but reported failed (a lost acknowledgement: the retry duplicates them). */
  readonly lostAcks: number;
  readonly seed: number;
}

const eventId = (entry: PublishBatchRequestEntry): string => (JSON.parse(entry.Message ?? '{}') as { id: string }).id;

/** Wraps the real (fauxqs-backed) SNS client and injects failures in front of it. */
export class FaultySns implements PublishBatchClient {
  readonly stats = { requests: 0, throttled: 0, serverErrors: 0, failedEntries: 0, lostAcks: 0, published: new Map<string, number>() };
  private readonly random: () => number;

  constructor(
    private readonly real: SNSClient,
    private readonly plan: FaultPlan,
  ) {
    this.random = seededRandom(plan.seed);
  }

  /** Events SNS accepted more than once. */
  duplicatesPublished(): number {
    return [...this.stats.published.values()].reduce((sum, n) => sum + n - 1, 0);
  }

  async send(command: PublishBatchCommand): Promise<PublishBatchCommandOutput> {
    this.stats.requests++;
    const roll = this.random();
    if (roll < this.plan.throttledRequests) {
      this.stats.throttled++;
      throw new ThrottledException({ message: 'Rate exceeded', $metadata: { httpStatusCode: 400 } });
    }
    if (roll < this.plan.throttledRequests + this.plan.failedRequests) {
      this.stats.serverErrors++;
      throw new InternalErrorException({ message: 'Internal error', $metadata: { httpStatusCode: 500 } });
    }
    const entries = command.input.PublishBatchRequestEntries ?? [];
    const fates = entries.map(() => {
      const r = this.random();
      if (r < this.plan.failedEntries) return 'fail' as const;
      if (r < this.plan.failedEntries + this.plan.lostAcks) return 'lost-ack' as const;
      return 'ok' as const;
    });
    const toSend = entries.filter((_, i) => fates[i] !== 'fail');
    const output: PublishBatchCommandOutput =
      toSend.length === 0
        ? { Successful: [], Failed: [], $metadata: {} }
        : await this.real.send(new PublishBatchCommand({ ...command.input, PublishBatchRequestEntries: toSend }));
    const realFailed = new Set((output.Failed ?? []).map((f) => f.Id));
    const successful = [];
    const failed = [...(output.Failed ?? [])];
    for (const [i, entry] of entries.entries()) {
      const fate = fates[i];
      if (fate === 'fail') {
        this.stats.failedEntries++;
        failed.push({ Id: entry.Id, Code: 'InternalError', Message: 'injected', SenderFault: false });
        continue;
      }
      if (realFailed.has(entry.Id)) continue;
      const id = eventId(entry);
      this.stats.published.set(id, (this.stats.published.get(id) ?? 0) + 1);
      if (fate === 'lost-ack') {
        this.stats.lostAcks++;
        failed.push({ Id: entry.Id, Code: 'InternalError', Message: 'injected after publishing', SenderFault: false });
      } else {
        successful.push({ Id: entry.Id, MessageId: output.Successful?.find((s) => s.Id === entry.Id)?.MessageId });
      }
    }
    return { ...output, Successful: successful, Failed: failed };
  }
}
