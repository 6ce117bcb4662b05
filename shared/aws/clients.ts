import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient, type DynamoDBStreamsClientConfig, errorTypeRegistries } from '@aws-sdk/client-dynamodb-streams';
import { SNSClient, type SNSClientConfig } from '@aws-sdk/client-sns';
import { SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { CLIENT_TIMEOUTS } from './client-timeouts.js';
import { StreamRecordsJsonCodec } from './stream-records-codec.js';

interface ClientWithStack {
  readonly middlewareStack: { remove(name: string): boolean };
}

/**
 * Without a logger, the SDK still builds the redacted copy of every request and response it
 * would log (its logger middleware calls the no-op logger with them): a walk of each
 * `GetRecords` page and each `PublishBatch` request that nobody reads. With a logger given,
 * the middleware stays.
 */
function withoutUnreadLogCopies<C extends ClientWithStack>(client: C, config: { logger?: unknown }): C {
  if (config.logger === undefined) client.middlewareStack.remove('loggerMiddleware');
  return client;
}

/**
 * A DynamoDB Streams client for reading outbox records: records and their attribute values are
 * decoded straight from the response's JSON (about a fifth of the default decoding's CPU for a
 * `GetRecords` page), nothing is prepared for a logger that is not there, and a silent connection
 * is given up ({@link CLIENT_TIMEOUTS}; the SDK's retries then try again) instead of holding a shard's
 * reader for ever. Results and errors are those of a plain `DynamoDBStreamsClient`.
 *
 * @example
 * ```ts
 * const streams = streamsClient({ region: 'eu-west-1' });
 * ```
 */
export function streamsClient(config: DynamoDBStreamsClientConfig = {}): DynamoDBStreamsClient {
  const client = new DynamoDBStreamsClient({
    protocolSettings: {
      defaultNamespace: 'com.amazonaws.dynamodbstreams',
      errorTypeRegistries,
      xmlNamespace: 'http://dynamodb.amazonaws.com/doc/2012-08-10/',
      version: '2012-08-10',
      serviceTarget: 'DynamoDBStreams_20120810',
      jsonCodec: new StreamRecordsJsonCodec(),
    },
    requestHandler: requestHandler(CLIENT_TIMEOUTS.streams),
    ...config,
  });
  return withoutUnreadLogCopies(client, config);
}

export { CLIENT_TIMEOUTS } from './client-timeouts.js';

/**
 * The request handler options for {@link CLIENT_TIMEOUTS}, on a connection pool without the SDK's
 * limit of 50 sockets. Both timeouts run from the moment a request is made, so a request queued
 * for a free socket spends its wait out of them: with more requests in flight than the pool
 * holds (`publishConcurrency` goes up to 64, and the stream processor sends for every shard it
 * leases through one client), a slow answer would time out requests that were never sent, and
 * their retries would publish duplicates. The relay bounds its own requests in flight, so the
 * pool need not.
 */
const requestHandler = (timeouts: (typeof CLIENT_TIMEOUTS)[keyof typeof CLIENT_TIMEOUTS]) => ({
  ...timeouts,
  httpAgent: { maxSockets: Number.POSITIVE_INFINITY },
  httpsAgent: { maxSockets: Number.POSITIVE_INFINITY },
});

/**
 * An SNS client that prepares nothing for a logger that is not there (see {@link streamsClient}),
 * gives up on a silent connection ({@link CLIENT_TIMEOUTS}; the SDK's retries then try again),
 * and never holds a request back for a socket.
 */
export const snsClient = (config: SNSClientConfig = {}): SNSClient =>
  withoutUnreadLogCopies(new SNSClient({ requestHandler: requestHandler(CLIENT_TIMEOUTS.sns), ...config }), config);

/** An SQS client like {@link snsClient}. */
export const sqsClient = (config: SQSClientConfig = {}): SQSClient =>
  withoutUnreadLogCopies(new SQSClient({ requestHandler: requestHandler(CLIENT_TIMEOUTS.sqs), ...config }), config);

/**
 * The timeouts of {@link leaseTableClient} for a lease renewal interval: a request gives up after
 * a quarter of it (connecting, after an eighth), so even with the SDK's retries a hung request
 * fails before the next renewal is due, instead of holding every later lease write back.
 */
export const leaseTableTimeouts = (renewIntervalMs: number) => {
  const requestTimeout = Math.max(10, Math.floor(renewIntervalMs / 4));
  return { connectionTimeout: Math.max(5, Math.floor(requestTimeout / 2)), requestTimeout, throwOnRequestTimeout: true } as const;
};

/**
 * A DynamoDB document client for the stream processor's lease table, given the processor's
 * `renewIntervalMs`: its requests time out well within it ({@link leaseTableTimeouts}), so a
 * renewal or checkpoint write never hangs, and a worker whose writes keep failing gives its
 * leases up before another worker may take them.
 *
 * @example
 * ```ts
 * const document = leaseTableClient(worker.settings.renewIntervalMs);
 * ```
 */
export const leaseTableClient = (renewIntervalMs: number, config: DynamoDBClientConfig = {}): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(new DynamoDBClient({ requestHandler: leaseTableTimeouts(renewIntervalMs), ...config }));
