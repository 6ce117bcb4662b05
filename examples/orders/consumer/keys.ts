import { INBOX_PREFIX, SEQUENCE_PREFIX } from 'dynamodb-outbox/consumer';

/** The example consumer's name: its inbox and sequence records are keyed by it. */
export const ORDER_VIEW_CONSUMER = 'order-view';

const ORDER_VIEW_PREFIX = 'VIEW#order#';

export const orderViewKey = (orderId: string) => ({ pk: `${ORDER_VIEW_PREFIX}${orderId}`, sk: 'VIEW' });

/**
 * The partition keys the example consumer reads and writes, as IAM `dynamodb:LeadingKeys`
 * patterns: its order views, its inbox records and its sequence records, nothing else.
 */
export const ORDER_VIEW_LEADING_KEYS = [
  `${ORDER_VIEW_PREFIX}*`,
  `${INBOX_PREFIX}${ORDER_VIEW_CONSUMER}#*`,
  `${SEQUENCE_PREFIX}${ORDER_VIEW_CONSUMER}#*`,
] as const;
