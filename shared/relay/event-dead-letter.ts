import type { DeadLetterFields } from './dead-letter-sender.js';
import type { EventItem } from './lanes.js';
import type { RecordCoordinates } from './stream-record.js';

/**
 * The dead letter of one event the relay gives up on: why, the record it came from, the topic it
 * was routed to (none when no route matched), and the event itself, so a redrive can publish it
 * again as the relay would have.
 */
export function eventDeadLetter(
  item: EventItem,
  record: RecordCoordinates,
  reason: DeadLetterFields['reason'],
  detail: string,
): DeadLetterFields {
  return {
    reason,
    detail,
    record,
    ...(item.topic === undefined ? {} : { topic: item.topic.name }),
    envelope: item.message.body,
    eventId: item.message.id,
    eventType: item.message.type,
    aggregateType: item.message.aggregateType,
    aggregateId: item.message.aggregateId,
    sequence: item.message.sequence,
  };
}
