import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { logAsIs } from '../aws/unfiltered-log.js';
import { type AggregateSequenceFields, aggregateSequenceOf, type OutboxEnvelope } from '../envelope.js';
import { TABLE } from '../table.js';
import type { ResolvedInboxOptions } from './inbox.js';

/**
 * Partition-key prefix of the records `sequenceTracking` keeps, one per consumer and aggregate:
 * `pk = SEQ#<consumer name>#<aggregate type>#<aggregate id>`.
 */
export const SEQUENCE_PREFIX = 'SEQ#';
/** Sort key of every sequence-tracking record (`sk = SEQ`). */
export const SEQUENCE_SORT_KEY = 'SEQ';

/** A position in an aggregate's event history: (slot creation time, `aggregatesequence`) increases strictly. */
export interface SequencePosition {
  readonly epoch: string;
  readonly sequence: number;
}

/** How an event's position relates to the last one this consumer handled for its aggregate. */
export type SequenceObservation =
  | { readonly status: 'first' }
  | { readonly status: 'in-order' }
  /** Events between the last handled one and this one have not been handled (yet). */
  | { readonly status: 'gap'; readonly last: SequencePosition; readonly received: SequencePosition; readonly missing: number | 'unknown' }
  /** This event is not after the last handled one: it arrived late. */
  | { readonly status: 'out-of-order'; readonly last: SequencePosition; readonly received: SequencePosition }
  /**
   * A replayed event (`outbox-replay`): a replay of some of an aggregate's types has gaps by design
   * and may arrive after live events, so neither is reported. `advanced` says whether it moved the
   * position forward (it never moves it back).
   */
  | { readonly status: 'replayed'; readonly advanced: boolean };

export const sequenceKey = (consumer: string, aggregateType: string, aggregateId: string) => ({
  [TABLE.partitionKey]: `${SEQUENCE_PREFIX}${consumer}#${aggregateType}#${aggregateId}`,
  [TABLE.sortKey]: SEQUENCE_SORT_KEY,
});

/** Compares the new position with the one it replaced. */
export function classify(last: SequencePosition | undefined, received: SequencePosition): SequenceObservation {
  if (last === undefined) return { status: 'first' };
  if (received.epoch < last.epoch || (received.epoch === last.epoch && received.sequence <= last.sequence)) {
    return { status: 'out-of-order', last, received };
  }
  if (received.epoch === last.epoch) {
    return received.sequence === last.sequence + 1
      ? { status: 'in-order' }
      : { status: 'gap', last, received, missing: received.sequence - last.sequence - 1 };
  }
  // A new slot epoch restarts the counter at 1; how many events the old slot still had after `last` is unknown.
  return received.sequence === 1 ? { status: 'in-order' } : { status: 'gap', last, received, missing: 'unknown' };
}

/**
 * Keeps the highest (`sequenceepoch`, `aggregatesequence`) handled per aggregate in one item per
 * aggregate, moved forward only by a conditional update, so concurrent workers cannot move it back.
 * An envelope of a relay before `aggregatesequence` is read by its numeric `sequence`, the same
 * count, kept in the same item: tracking goes on across the switch without a false gap. Each
 * update writes a token of its own and the position it replaced, so an SDK retry of an update
 * that was applied (its answer lost) recognises its own write instead of reporting it out of order.
 *
 * @example
 * ```ts
 * const tracker = new SequenceTracker('billing', { document, tableName });
 * const seen = await tracker.observe(envelope, { replayed: replayId !== undefined });
 * if (seen.status === 'gap') logger.warn('gap', seen);
 * ```
 */
export class SequenceTracker {
  readonly #consumer: string;
  readonly #options: ResolvedInboxOptions;
  readonly #retentionSeconds: number;
  readonly #now: () => number;

  constructor(consumer: string, options: ResolvedInboxOptions, retentionSeconds: number, now: () => number = Date.now) {
    this.#consumer = consumer;
    this.#options = options;
    this.#retentionSeconds = retentionSeconds;
    this.#now = now;
  }

  /**
   * Records the event's position when it is after the one recorded, and says how it relates to it.
   * A `replayed` event moves the position the same way, forward only, and is always `replayed`.
   */
  async observe(
    event: Pick<OutboxEnvelope, 'aggregatetype' | 'subject' | 'sequenceepoch'> & AggregateSequenceFields,
    options: { readonly replayed?: boolean } = {},
  ): Promise<SequenceObservation> {
    const received: SequencePosition = { epoch: event.sequenceepoch, sequence: aggregateSequenceOf(event) };
    const token = crypto.randomUUID();
    try {
      const { Attributes } = await this.#options.document.send(
        logAsIs(
          new UpdateCommand({
            TableName: this.#options.tableName,
            Key: sequenceKey(this.#consumer, event.aggregatetype, event.subject),
            // The operands are read before the update: previous* keep the position it replaces.
            UpdateExpression:
              'SET previousEpoch = if_not_exists(lastEpoch, :none), previousSequence = if_not_exists(lastSequence, :zero), ' +
              'lastEpoch = :epoch, lastSequence = :sequence, updateToken = :token, aggregateType = :type, aggregateId = :id, expiresAt = :ttl',
            ConditionExpression:
              'attribute_not_exists(lastSequence) OR lastEpoch < :epoch OR (lastEpoch = :epoch AND lastSequence < :sequence)',
            ExpressionAttributeValues: {
              ':epoch': received.epoch,
              ':sequence': received.sequence,
              ':token': token,
              ':none': NO_EPOCH,
              ':zero': 0,
              ':type': event.aggregatetype,
              ':id': event.subject,
              ':ttl': Math.floor(this.#now() / 1000) + this.#retentionSeconds,
            },
            ReturnValues: 'ALL_OLD',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        ),
      );
      return options.replayed === true ? { status: 'replayed', advanced: true } : classify(positionOf(Attributes), received);
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException) || error.Item === undefined) throw error;
      const item = unmarshall(error.Item);
      // The SDK sent the update again after its first attempt was applied and its answer lost: the write is ours.
      if (item.updateToken === token) {
        return options.replayed === true ? { status: 'replayed', advanced: true } : classify(previousPositionOf(item), received);
      }
      return options.replayed === true ? { status: 'replayed', advanced: false } : classify(positionOf(item), received);
    }
  }
}

/** `previousEpoch` of an item whose update found no position before it. */
const NO_EPOCH = '';

function positionOf(item: Record<string, unknown> | undefined): SequencePosition | undefined {
  if (item === undefined || typeof item.lastEpoch !== 'string' || typeof item.lastSequence !== 'number') return undefined;
  return { epoch: item.lastEpoch, sequence: item.lastSequence };
}

/** The position the item's last update replaced, as that update found it. */
function previousPositionOf(item: Record<string, unknown>): SequencePosition | undefined {
  if (typeof item.previousEpoch !== 'string' || item.previousEpoch === NO_EPOCH || typeof item.previousSequence !== 'number')
    return undefined;
  return { epoch: item.previousEpoch, sequence: item.previousSequence };
}
