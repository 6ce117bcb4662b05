import { showValue } from '../show-value.js';

/**
 * What a client of each kind several parts take may be, as their refusals say it after "allowed:",
 * one wording each: the relay's SNS client and dead-letter SQS client (the relay, the on-failure
 * redrive), a DynamoDB Streams client (the stream processor, the on-failure redrive).
 */
export const SEND_CLIENT_ALLOWED = {
  sns: 'an SNSClient (or anything that sends PublishBatch like one)',
  deadLetterSqs: 'an SQSClient (or anything that sends SendMessage like one)',
  streams: 'a DynamoDBStreamsClient (or anything that sends DescribeStream, GetShardIterator and GetRecords like one)',
} as const;

/**
 * What a value given where an AWS SDK client belongs (an `SQSClient`, an `SNSClient`, a
 * `DynamoDBStreamsClient`…, or anything with a `send` method like one) was, as a refusal shows it
 * after "got": `undefined` when it has a `send` method. An object is named by what it lacks, not
 * shown: a client would show as pages of JSON.
 *
 * @example
 * ```ts
 * const given = sendClientFault(options.sqs);
 * if (given !== undefined) throw new RedriveOptionsError('sqs', `got ${given}; allowed: an SQSClient`);
 * ```
 */
export function sendClientFault(value: unknown): string | undefined {
  if (typeof (value as { readonly send?: unknown } | null | undefined)?.send === 'function') return undefined;
  return typeof value === 'object' && value !== null ? 'an object without a send method' : showValue(value);
}
