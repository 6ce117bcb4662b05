import type { SlotMessage } from '../envelope.js';
import { SLOT_PREFIX } from '../slot.js';
import { TABLE } from '../table.js';
import { decodeStreamRecord } from './decode.js';
import type { Lanes } from './lanes.js';
import type { RecordState } from './run-result.js';
import type { RecordCoordinates, StreamRecordInput } from './stream-record.js';
import type { RelayOptions } from './types.js';

/**
 * The lane of a malformed record: its aggregate's (`<type>#<id>`, as events' lanes are keyed)
 * when its image's partition key is a slot's, else one of its own.
 */
function malformedLaneKey(record: StreamRecordInput, index: number): string {
  const pk = (record.dynamodb?.NewImage?.[TABLE.partitionKey] as { S?: unknown } | undefined)?.S;
  return typeof pk === 'string' && pk.startsWith(SLOT_PREFIX) ? pk.slice(SLOT_PREFIX.length) : `\u0000record-${index}`;
}

/**
 * Decodes an invocation's records into their aggregates' lanes and sets each record's state
 * (ignored, or the events it still has to send); returns the events routed to a topic, with its
 * name, for the batch's span. The selection comes resolved (the `Relay` sets the default
 * `ignoreAggregateTypes` once): what is not listed here is published.
 */
export function fillLanes(
  lanes: Lanes,
  records: readonly StreamRecordInput[],
  states: RecordState[],
  coordinates: readonly RecordCoordinates[],
  options: Pick<RelayOptions, 'config' | 'ignoreAggregateTypes' | 'onlyAggregateTypes'>,
): { message: SlotMessage; topic: string }[] {
  const routed: { message: SlotMessage; topic: string }[] = [];
  const { config } = options;
  records.forEach((record, index) => {
    const state = states[index]!;
    const decoded = decodeStreamRecord(record, config, options);
    const where = coordinates[index]!;
    if (decoded.status === 'ignored') {
      state.outcome = { status: 'ignored', record: where, reason: decoded.reason };
    } else if (decoded.status === 'malformed') {
      state.outstanding = 1;
      // In its aggregate's lane (known from its key), so no later record of the aggregate overtakes it.
      lanes.addMalformed(index, malformedLaneKey(record, index), {
        reason: 'MALFORMED_SLOT',
        detail: decoded.problem,
        record: where,
        rawImage: decoded.rawImage,
      });
    } else {
      state.outstanding = decoded.messages.length;
      lanes.add(index, decoded.messages, decoded.status === 'decoded' ? decoded.topic : undefined);
      if (decoded.status === 'decoded') for (const message of decoded.messages) routed.push({ message, topic: decoded.topic.name });
    }
  });
  return routed;
}
