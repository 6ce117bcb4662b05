/**
 * What an SNS topic ARN looks like, checked where one is configured (the relay's topics, a
 * consumer's trusted topics, a redrive's targets), so that a typo fails when the part is built, not at each message.
 */

/** `arn:<partition>:sns:<region>:<12-digit account>:<topic name>`; the first group is the topic's name. */
const SNS_TOPIC_ARN = /^arn:[a-z-]+:sns:[a-z0-9-]+:\d{12}:([A-Za-z0-9_-]{1,256}(?:\.fifo)?)$/;

/**
 * What `arn` should have been, or `undefined` when it is an SNS topic's ARN, and of the kind
 * `fifo` names when given. SNS names every FIFO topic `….fifo` and no standard one so.
 */
export function snsTopicArnProblem(arn: unknown, fifo?: boolean): string | undefined {
  const name = typeof arn === 'string' ? SNS_TOPIC_ARN.exec(arn)?.[1] : undefined;
  if (name === undefined) return 'an SNS topic ARN (arn:<partition>:sns:<region>:<12-digit account>:<topic name>)';
  if (fifo === true && !name.endsWith('.fifo'))
    return 'the ARN of a FIFO topic (its name ends in ".fifo"), as the config says the topic is FIFO';
  if (fifo === false && name.endsWith('.fifo'))
    return 'the ARN of a standard topic (its name does not end in ".fifo"), as the config says the topic is standard';
  return undefined;
}
