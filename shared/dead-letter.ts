/**
 * What the relay sends to its dead-letter queue when a record can never be published:
 * everything needed to understand the failure and to republish the original envelope with
 * the same id (so consumer dedup still holds).
 */
export const RELAY_DEAD_LETTER_KIND = 'outbox-relay-dead-letter';

export type RelayDeadLetterReason =
  /** SNS rejected the message for good (e.g. too large, invalid parameter). */
  | 'PUBLISH_REJECTED'
  /** The stream record's image is not a well-formed outbox slot. */
  | 'MALFORMED_SLOT'
  /** The aggregate type has no route in the config. */
  | 'UNKNOWN_ROUTE';

/** Where the failed record sat in the stream. */
export interface StreamCoordinates {
  readonly eventSourceArn?: string;
  readonly eventId?: string;
  readonly sequenceNumber?: string;
  readonly approximateCreationDateTime?: number;
}

export interface RelayDeadLetter {
  readonly kind: typeof RELAY_DEAD_LETTER_KIND;
  readonly version: 1;
  readonly reason: RelayDeadLetterReason;
  /** Human-readable detail, e.g. the SNS error code and message. */
  readonly detail: string;
  readonly failedAt: string;
  readonly record: StreamCoordinates;
  /** The topic the event was routed to, by config name, when a route existed. */
  readonly topic?: string;
  /** The full CloudEvents envelope (JSON text) when the slot could be decoded. */
  readonly envelope?: string;
  readonly eventId?: string;
  readonly eventType?: string;
  readonly aggregateType?: string;
  readonly aggregateId?: string;
  readonly sequence?: number;
  /** The raw stream image (DynamoDB JSON) when it could not be decoded into envelopes. */
  readonly rawImage?: unknown;
}

export const isRelayDeadLetter = (value: unknown): value is RelayDeadLetter =>
  typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === RELAY_DEAD_LETTER_KIND;
