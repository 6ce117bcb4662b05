import type { CreateTableCommandInput, UpdateTimeToLiveCommandInput } from '@aws-sdk/client-dynamodb';

/**
 * The single table's definition, read by the CDK stack, the local stack and the tests alike,
 * so every environment creates the same keys, stream and TTL.
 */
export const TABLE = Object.freeze({
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Both keys are strings. */
  keyType: 'S',
  streamViewType: 'NEW_IMAGE',
  timeToLiveAttribute: 'expiresAt',
} as const);

/**
 * The value of the TTL attribute for an item to expire `seconds` after `now`: epoch seconds, as
 * DynamoDB TTL reads them.
 *
 * @example
 * ```ts
 * const item = { pk, sk, [TABLE.timeToLiveAttribute]: expiresAt(new Date(), 86_400) };
 * ```
 */
export function expiresAt(now: Date, seconds: number): number {
  return Math.floor(now.getTime() / 1000) + seconds;
}

/** `CreateTable` input for the outbox table (on-demand, stream NEW_IMAGE); TTL is set separately. */
export function createTableInput(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    AttributeDefinitions: [
      { AttributeName: TABLE.partitionKey, AttributeType: TABLE.keyType },
      { AttributeName: TABLE.sortKey, AttributeType: TABLE.keyType },
    ],
    KeySchema: [
      { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
    ],
    BillingMode: 'PAY_PER_REQUEST',
    StreamSpecification: { StreamEnabled: true, StreamViewType: TABLE.streamViewType },
  };
}

/** `UpdateTimeToLive` input that turns on TTL on {@link TABLE.timeToLiveAttribute}. */
export function timeToLiveInput(tableName: string): UpdateTimeToLiveCommandInput {
  return {
    TableName: tableName,
    TimeToLiveSpecification: { AttributeName: TABLE.timeToLiveAttribute, Enabled: true },
  };
}
