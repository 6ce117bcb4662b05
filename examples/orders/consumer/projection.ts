import { type Consumer, type ConsumerOptions, createConsumer, eventHandler } from 'dynamodb-outbox/consumer';
import { config } from '../outbox.config.js';
import { ORDER_VIEW_CONSUMER, orderViewKey } from './keys.js';

export interface OrderPlaced {
  readonly total: number;
  readonly currency: string;
}

export interface PaymentCaptured {
  readonly orderId: string;
  readonly amount: number;
}

/**
 * The example app's read model: one view item per order, kept by `order.*` and `payment.captured`
 * events. Every write goes through the inbox transaction, so a redelivered event changes nothing,
 * and the writes commute, so the view is the same whatever order the two topics deliver in.
 * It lives in the app that writes the events, so it accepts the source of the app's own config.
 */
export function orderProjection(
  options: Pick<ConsumerOptions, 'inbox'> & Partial<Pick<ConsumerOptions, 'logger' | 'metrics' | 'sources'>>,
): Consumer {
  const { tableName } = options.inbox;
  return createConsumer({
    sources: [config.source],
    ...options,
    name: ORDER_VIEW_CONSUMER,
    // The schemas the write helper checked the events against, by the version each names.
    catalog: config,
    sequenceTracking: true,
    handlers: {
      'order.placed': eventHandler<OrderPlaced>({
        handle: (event, ctx) =>
          ctx.write({
            Update: {
              TableName: tableName,
              Key: orderViewKey(event.subject),
              // Orders and payments travel on different topics: a payment (or a cancellation)
              // may arrive first, and its status must survive the later placement.
              UpdateExpression:
                'SET #status = if_not_exists(#status, :placed), #total = :total, #currency = :currency, #placedAt = :placedAt ADD #paid :zero',
              ExpressionAttributeNames: {
                '#status': 'status',
                '#total': 'total',
                '#currency': 'currency',
                '#placedAt': 'placedAt',
                '#paid': 'paid',
              },
              ExpressionAttributeValues: {
                ':placed': 'PLACED',
                ':total': event.data.total,
                ':currency': event.data.currency,
                ':placedAt': event.time,
                ':zero': 0,
              },
            },
          }),
      }),
      'order.cancelled': {
        handle: (event, ctx) =>
          ctx.write({
            Update: {
              TableName: tableName,
              Key: orderViewKey(event.subject),
              UpdateExpression: 'SET #status = :cancelled',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':cancelled': 'CANCELLED' },
            },
          }),
      },
      'payment.captured': eventHandler<PaymentCaptured>({
        handle: (event, ctx) =>
          ctx.write({
            Update: {
              TableName: tableName,
              Key: orderViewKey(event.data.orderId),
              // Only a placed, uncancelled order can be paid, so a captured payment means PAID.
              UpdateExpression: 'SET #status = :paid ADD #paid :amount',
              ExpressionAttributeNames: { '#status': 'status', '#paid': 'paid' },
              ExpressionAttributeValues: { ':paid': 'PAID', ':amount': event.data.amount },
            },
          }),
      }),
    },
  });
}
