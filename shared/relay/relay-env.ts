import { snsTopicArnProblem } from '../aws/sns-topic-arn.js';
import { SQS_QUEUE_URL_FORM } from '../aws/sqs-queue-url.js';
import { configFromEnv, type OutboxConfig } from '../config.js';
import { jsonFromEnv, requireEnv, shownEnvValue as shown } from '../env.js';
import { EnvironmentError } from '../errors.js';
import { RELAY_ENV } from '../event-source.js';
import { showValue } from '../show-value.js';
import { deadLetterQueueUrlFault } from './dead-letter-sender.js';

/** What a deployed relay reads from its environment at cold start. */
export interface RelayEnvironment {
  readonly config: OutboxConfig;
  readonly topicArns: Readonly<Record<string, string>>;
  readonly deadLetterQueueUrl: string;
}

/**
 * Reads the relay's environment ({@link RELAY_ENV}) once, failing with an {@link EnvironmentError}
 * that names the variable, what it held and what it may hold when one is missing, empty or malformed.
 *
 * @example
 * ```ts
 * const { config, topicArns, deadLetterQueueUrl } = relayEnvironment();
 * ```
 */
export function relayEnvironment(env: NodeJS.ProcessEnv = process.env): RelayEnvironment {
  const config = configFromEnv(env, RELAY_ENV.config);
  const topicArns = readTopicArns(env, config);
  const allowedUrl = `the URL of the relay dead-letter queue, a standard SQS queue (not FIFO), ${SQS_QUEUE_URL_FORM}`;
  const deadLetterQueueUrl = requireEnv(RELAY_ENV.deadLetterQueueUrl, env, allowedUrl, deadLetterQueueUrlFault);
  return { config, topicArns, deadLetterQueueUrl };
}

function readTopicArns(env: NodeJS.ProcessEnv, config: OutboxConfig): Record<string, string> {
  const names = config.topics.map((topic) => JSON.stringify(topic.name)).join(', ');
  const allowed = `a JSON object of topic name → SNS topic ARN, with an entry for each configured topic (${names})`;
  const { text, value: parsed } = jsonFromEnv(RELAY_ENV.topicArns, env, allowed);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new EnvironmentError(RELAY_ENV.topicArns, `got ${shown(text)}; allowed: ${allowed}`);
  }
  const arns = parsed as Record<string, unknown>;
  for (const topic of config.topics) {
    if (!Object.hasOwn(arns, topic.name)) {
      const keys = Object.keys(arns).map((key) => JSON.stringify(key));
      const given = keys.length === 0 ? 'an empty object' : `entries for ${keys.join(', ')} only`;
      throw new EnvironmentError(RELAY_ENV.topicArns, `has no entry for topic "${topic.name}" (got ${given}); allowed: ${allowed}`);
    }
    const arn = arns[topic.name];
    // The relay checks the same when it is built, but its ConfigError would not name the variable.
    const problem = snsTopicArnProblem(arn, topic.fifo);
    if (problem !== undefined) {
      throw new EnvironmentError(RELAY_ENV.topicArns, `has ${showValue(arn)} for topic "${topic.name}"; allowed: ${problem}`);
    }
  }
  return arns as Record<string, string>;
}
