import { showValue } from '../show-value.js';

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
