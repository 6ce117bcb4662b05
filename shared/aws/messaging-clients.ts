/*
 * The SNS and SQS clients, apart from the DynamoDB clients so that the relay's bundle, which only
 * publishes and dead-letters, leaves those out.
 */

import { SNSClient, type SNSClientConfig } from '@aws-sdk/client-sns';
import { SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';
import { CLIENT_TIMEOUTS } from './client-timeouts.js';
import { requestHandler, withoutUnreadLogCopies } from './client-tuning.js';

/**
 * An SNS client that prepares nothing for a logger that is not there (see `withoutUnreadLogCopies`),
 * gives up on a silent connection ({@link CLIENT_TIMEOUTS}; the SDK's retries then try again),
 * and never holds a request back for a socket.
 *
 * @example
 * ```ts
 * const sns = snsClient({ region: 'eu-west-1' });
 * ```
 */
export const snsClient = (config: SNSClientConfig = {}): SNSClient =>
  withoutUnreadLogCopies(new SNSClient({ requestHandler: requestHandler(CLIENT_TIMEOUTS.sns), ...config }), config);

/**
 * An SQS client like {@link snsClient}.
 *
 * @example
 * ```ts
 * const sqs = sqsClient({ region: 'eu-west-1' });
 * ```
 */
export const sqsClient = (config: SQSClientConfig = {}): SQSClient =>
  withoutUnreadLogCopies(new SQSClient({ requestHandler: requestHandler(CLIENT_TIMEOUTS.sqs), ...config }), config);
