import { createHash, randomUUID } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import {
  OutboxError,
  TransactionFailedError,
  type WriteInput,
  WriteOutcomeUnknownError,
  WriteRejectedError,
  type WriteResult,
  WriteValidationError,
} from 'dynamodb-outbox';
import { orderViewKey } from '../consumer/keys.js';
import { ApiError, type ApiRequest, type ApiResponse } from './api-types.js';
import { amountField, objectBody, stringField } from './request-body.js';

export interface OrdersApiDeps {
  /** The write helper (an `Outbox`). */
  readonly outbox: { write(input: WriteInput): Promise<WriteResult> };
  readonly document: DynamoDBDocumentClient;
  readonly tableName: string;
  /** Sees errors answered with 500, which are not the caller's. @default ignored */
  readonly onUnexpectedError?: (error: unknown) => void;
}

/** An order as the API stores it. */
export interface Order {
  readonly orderId: string;
  readonly status: 'placed' | 'paid' | 'cancelled';
  readonly total: number;
  readonly currency: string;
  readonly paymentId?: string;
  readonly cancelReason?: string;
}

export type OrdersApi = (request: ApiRequest) => Promise<ApiResponse>;

const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const ID_ALLOWED = '1–64 letters, digits, "-" or "_"';
const orderKey = (orderId: string) => ({ pk: `ORDER#${orderId}`, sk: 'ORDER' });
const ROUTES = 'POST /orders, GET /orders/{id}, POST /orders/{id}/pay, POST /orders/{id}/cancel';
const PATH_ALLOWED =
  'a path whose every "%" starts an escape of two hex digits, together UTF-8 (such as %2D or %C3%A9), e.g. /orders/o-1/pay';

/** A path segment decoded, or `INVALID_PATH` naming the path, the segment and what is allowed. */
function decodeSegment(path: string, segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch (error) {
    const detail = `${JSON.stringify(segment)}: ${(error as Error).message}`;
    throw new ApiError(
      400,
      'INVALID_PATH',
      `the path ${JSON.stringify(path)} is not valid percent-encoding (${detail}); allowed: ${PATH_ALLOWED}`,
    );
  }
}

const written = (result: WriteResult) => ({
  events: result.events.map((e) => ({ id: e.id, type: e.type, aggregate: e.aggregate, sequence: e.sequence })),
  replayed: result.replayed,
});

function idempotencyKey(request: ApiRequest): { idempotencyKey?: string } {
  const key = request.headers['idempotency-key'];
  return key === undefined ? {} : { idempotencyKey: key };
}

/**
 * A new id; derived from the Idempotency-Key when there is one, so a retried request writes
 * exactly the same items and the write helper recognises it as the same write.
 */
function newId(request: ApiRequest, purpose: string): string {
  const key = request.headers['idempotency-key'];
  if (key === undefined) return randomUUID();
  const hex = createHash('sha256').update(`${purpose}\u0000${key}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** The API's answer to an error of the write helper or of its own checks. */
export function errorResponse(error: unknown): ApiResponse {
  if (error instanceof ApiError) {
    return {
      status: error.status,
      body: { error: { code: error.code, message: error.message, ...(error.field ? { field: error.field } : {}) } },
      ...(error.headers === undefined ? {} : { headers: error.headers }),
    };
  }
  if (error instanceof WriteValidationError) {
    const field = error.code === 'INVALID_IDEMPOTENCY_KEY' ? { field: 'Idempotency-Key' } : {};
    return { status: 400, body: { error: { code: error.code, message: error.message, ...field } } };
  }
  if (error instanceof WriteOutcomeUnknownError) {
    // The write may yet commit: the client learns which by retrying with its Idempotency-Key.
    return { status: 503, body: { error: { code: error.code, message: error.message } } };
  }
  if (error instanceof WriteRejectedError) {
    // The service's own setup (permissions, credentials, a missing table): nothing the client can change.
    return { status: 500, body: { error: { code: error.code, message: 'the request failed on the server; see the service logs' } } };
  }
  if (error instanceof OutboxError) {
    // Conflicts, reused idempotency keys and cancelled transactions: the request met the state of the data.
    return { status: 409, body: { error: { code: error.code, message: error.message } } };
  }
  return { status: 500, body: { error: { code: 'INTERNAL', message: 'the request failed on the server; see the stack output' } } };
}

/**
 * The example shop's API on the write helper: place, pay and cancel orders; each business
 * write and its events commit in one transaction, and an illegal transition (paying a
 * cancelled order) is a conditional write that fails with 409, writing nothing.
 *
 * @example
 * ```ts
 * const api = ordersApi({ outbox, document, tableName });
 * const response = await api({ method: 'POST', path: '/orders', headers: {}, body: { total: 42, currency: 'EUR' } });
 * ```
 */
export function ordersApi({ outbox, document, tableName, onUnexpectedError }: OrdersApiDeps): OrdersApi {
  const getOrder = async (orderId: string): Promise<Order> => {
    const { Item } = await document.send(new GetCommand({ TableName: tableName, Key: orderKey(orderId) }));
    if (Item === undefined) throw new ApiError(404, 'ORDER_NOT_FOUND', `order ${JSON.stringify(orderId)} does not exist`, 'id');
    const { pk: _pk, sk: _sk, ...order } = Item;
    return order as Order;
  };

  const place = async (request: ApiRequest): Promise<ApiResponse> => {
    const body = objectBody(request.body, ['total', 'currency', 'id']);
    const total = amountField(body, 'total');
    const currency = stringField(body, 'currency', /^[A-Z]{3}$/, 'a three-letter ISO 4217 code such as "EUR"');
    const orderId = stringField(body, 'id', ID_PATTERN, ID_ALLOWED, newId(request, 'order'));
    const order: Order = { orderId, status: 'placed', total, currency };
    try {
      const result = await outbox.write({
        operations: [
          { Put: { TableName: tableName, Item: { ...orderKey(orderId), ...order }, ConditionExpression: 'attribute_not_exists(pk)' } },
        ],
        events: [{ aggregate: { type: 'order', id: orderId }, type: 'order.placed', data: { total, currency } }],
        ...idempotencyKey(request),
      });
      return { status: 201, body: { order, ...written(result) } };
    } catch (error) {
      if (error instanceof TransactionFailedError && error.failures.some((f) => f.index === 0 && f.reason === 'ConditionalCheckFailed')) {
        throw new ApiError(
          409,
          'ORDER_EXISTS',
          `order ${JSON.stringify(orderId)} already exists; allowed: a new id, or leave id out for a new one`,
          'id',
        );
      }
      throw error;
    }
  };

  /** Moves a placed order to `status`, with the events of that transition; 409 when it is no longer placed. */
  const transition = async (
    request: ApiRequest,
    orderId: string,
    status: 'paid' | 'cancelled',
    events: (order: Order, extra: Record<string, string>) => WriteInput['events'],
    extra: Record<string, string>,
  ): Promise<ApiResponse> => {
    const order = await getOrder(orderId);
    const illegal = () =>
      new ApiError(409, 'ILLEGAL_TRANSITION', `order ${JSON.stringify(orderId)} is ${order.status}; only a placed order can be ${status}`);
    // With an Idempotency-Key the write decides: a retry of a request that committed is replayed, not refused.
    if (order.status !== 'placed' && request.headers['idempotency-key'] === undefined) throw illegal();
    try {
      const result = await outbox.write({
        operations: [
          {
            Update: {
              TableName: tableName,
              Key: orderKey(orderId),
              UpdateExpression: `SET #status = :status${Object.keys(extra)
                .map((k) => `, ${k} = :${k}`)
                .join('')}`,
              ConditionExpression: '#status = :placed',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: {
                ':status': status,
                ':placed': 'placed',
                ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [`:${k}`, v])),
              },
            },
          },
        ],
        events: events(order, extra),
        ...idempotencyKey(request),
      });
      return { status: 200, body: { order: { ...order, status, ...extra }, ...written(result) } };
    } catch (error) {
      if (error instanceof TransactionFailedError && error.failures.some((f) => f.reason === 'ConditionalCheckFailed')) {
        if (order.status !== 'placed') throw illegal();
        throw new ApiError(
          409,
          'ILLEGAL_TRANSITION',
          `order ${JSON.stringify(orderId)} changed meanwhile; only a placed order can be ${status}`,
        );
      }
      throw error;
    }
  };

  const pay = (request: ApiRequest, orderId: string) => {
    objectBody(request.body, []);
    return transition(
      request,
      orderId,
      'paid',
      (order, { paymentId }) => [
        { aggregate: { type: 'payment', id: paymentId as string }, type: 'payment.captured', data: { orderId, amount: order.total } },
      ],
      { paymentId: newId(request, `payment ${orderId}`) },
    );
  };

  const cancel = (request: ApiRequest, orderId: string) => {
    const body = objectBody(request.body, ['reason']);
    const reason = stringField(body, 'reason', /^[^\p{Cc}]{1,200}$/u, '1–200 printable characters', 'cancelled by the customer');
    return transition(
      request,
      orderId,
      'cancelled',
      () => [{ aggregate: { type: 'order', id: orderId }, type: 'order.cancelled', data: { reason } }],
      {
        cancelReason: reason,
      },
    );
  };

  const show = async (orderId: string): Promise<ApiResponse> => {
    const order = await getOrder(orderId);
    const { Item } = await document.send(new GetCommand({ TableName: tableName, Key: orderViewKey(orderId) }));
    const view = Item === undefined ? null : Object.fromEntries(Object.entries(Item).filter(([k]) => k !== 'pk' && k !== 'sk'));
    return { status: 200, body: { order, view } };
  };

  const route = (request: ApiRequest): Promise<ApiResponse> => {
    // One trailing slash is forgiven; an empty segment inside (`/orders//pay`) is an empty id, not a shorter path.
    const parts = request.path.replace(/^\/|\/$/g, '').split('/');
    const [collection, rawId, action] = parts.map((p) => decodeSegment(request.path, p));
    if (collection !== 'orders' || parts.length > 3 || (action !== undefined && action !== 'pay' && action !== 'cancel')) {
      throw new ApiError(404, 'NOT_FOUND', `no route ${request.method} ${request.path}; allowed: ${ROUTES}`);
    }
    // A route takes one method whatever its id: a wrong one is a 405 (with `Allow`) before the id is looked at.
    const reads = rawId !== undefined && action === undefined;
    const method = reads ? 'GET' : 'POST';
    if (request.method !== method) {
      const route = rawId === undefined ? '/orders' : `/orders/{id}${action === undefined ? '' : `/${action}`}`;
      const more = rawId === undefined ? ' (to place an order; there is no list of orders: read one at GET /orders/{id})' : '';
      throw new ApiError(
        405,
        'METHOD_NOT_ALLOWED',
        `${request.method} ${request.path} is not supported; allowed: ${method} ${route}${more}`,
        undefined,
        { allow: method },
      );
    }
    if (rawId !== undefined && !ID_PATTERN.test(rawId))
      throw new ApiError(400, 'INVALID_FIELD', `order id ${JSON.stringify(rawId)} is not valid; allowed: ${ID_ALLOWED}`, 'id');
    // The body is looked at only once the request is known to be a route's: a wrong route is a 404 or 405 whatever it carries.
    if (request.bodyError !== undefined) throw request.bodyError;
    if (rawId === undefined) return place(request);
    if (action === undefined) return show(rawId);
    return action === 'pay' ? pay(request, rawId) : cancel(request, rawId);
  };

  return async (request) => {
    try {
      return await route(request);
    } catch (error) {
      const response = errorResponse(error);
      if (response.status >= 500) onUnexpectedError?.(error);
      return response;
    }
  };
}
