import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';

/** SQS's approximate counts of a queue's messages. */
export interface QueueCounts {
  /** `ApproximateNumberOfMessages`: ready to be received. */
  readonly visible: number;
  /** `ApproximateNumberOfMessagesNotVisible`: received and not yet deleted. */
  readonly inFlight: number;
  /** `ApproximateNumberOfMessagesDelayed`. */
  readonly delayed: number;
}

/**
 * The approximate counts of a queue, as SQS reports them; `abortSignal` ends the request.
 *
 * @example
 * ```ts
 * const { visible, inFlight } = await queueCounts(sqs, queueUrl);
 * ```
 */
export async function queueCounts(sqs: Pick<SQSClient, 'send'>, queueUrl: string, abortSignal?: AbortSignal): Promise<QueueCounts> {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
    }),
    abortSignal === undefined ? {} : { abortSignal },
  );
  return {
    visible: Number(Attributes.ApproximateNumberOfMessages ?? 0),
    inFlight: Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0),
    delayed: Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0),
  };
}
