export type { EventInput, WriteInput, WriteOperation, WriteResult, WrittenEvent } from './types.js';
export { IDEMPOTENCY_PREFIX, MAX_ITEM_BYTES, MAX_REQUEST_BYTES, MAX_TRANSACTION_ACTIONS } from './types.js';
export type { OutboxOptions, WriteRetryOptions } from './writer.js';
export { Outbox } from './writer.js';
