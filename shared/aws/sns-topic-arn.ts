/**
 * What an SNS topic ARN looks like, checked where one is configured (the relay's topics, a
 * consumer's trusted topics, a redrive's targets), so that a typo fails when the part is built, not at each message.
 */

/** `arn:<partition>:sns:<region>:<12-digit account>:<topic name>`; the first group is the topic's name. */
const SNS_TOPIC_ARN = /^arn:[a-z-]+:sns:[a-z0-9-]+:\d{12}:([A-Za-z0-9_-]{1,256}(?:\.fifo)?)$/;

/**
 * The topic's name in an SNS topic ARN (its last part), or `undefined` when `arn` is not one.
 *
 * @example
 * ```ts
 * snsTopicName('arn:aws:sns:eu-west-1:123456789012:orders.fifo'); // 'orders.fifo'
 * ```
 */
export function snsTopicName(arn: unknown): string | undefined {
  return typeof arn === 'string' ? SNS_TOPIC_ARN.exec(arn)?.[1] : undefined;
}

/**
 * Whether `arn` is the ARN of a FIFO topic: SNS names every FIFO topic `….fifo` and no standard
 * one so. Read from the topic's name in the ARN, as {@link snsTopicArnProblem} reads the kind;
 * `false` for what is not an SNS topic ARN (a subscription's ARN, say), which is no FIFO topic's.
 */
export const isFifoTopicArn = (arn: string): boolean => snsTopicName(arn)?.endsWith('.fifo') === true;

/**
 * What `arn` should have been, or `undefined` when it is an SNS topic's ARN, and of the kind
 * `fifo` names when given (see {@link isFifoTopicArn}).
 */
export function snsTopicArnProblem(arn: unknown, fifo?: boolean): string | undefined {
  if (snsTopicName(arn) === undefined) return 'an SNS topic ARN (arn:<partition>:sns:<region>:<12-digit account>:<topic name>)';
  if (fifo === true && !isFifoTopicArn(arn as string))
    return 'the ARN of a FIFO topic (its name ends in ".fifo"), as the config says the topic is FIFO';
  if (fifo === false && isFifoTopicArn(arn as string))
    return 'the ARN of a standard topic (its name does not end in ".fifo"), as the config says the topic is standard';
  return undefined;
}
