import { configFromEnv, type OutboxConfig } from '../config.js';
import { jsonFromEnv, requireEnv, shownEnvValue as shown } from '../env.js';
import { EnvironmentError } from '../errors.js';
import { RELAY_ENV } from '../event-source.js';
import { showValue } from '../show-value.js';
import { DEAD_LETTER_QUEUE_URL_ALLOWED, deadLetterQueueUrlFault } from './dead-letter-sender.js';
import { topicArnFaultWords, topicArnsFault } from './topic-arns.js';

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
  const deadLetterQueueUrl = requireEnv(RELAY_ENV.deadLetterQueueUrl, env, DEAD_LETTER_QUEUE_URL_ALLOWED, deadLetterQueueUrlFault);
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
  const fault = topicArnsFault(config.topics, arns);
  if (fault?.kind === 'missing') {
    const keys = Object.keys(arns).map((key) => JSON.stringify(key));
    const given = keys.length === 0 ? 'an empty object' : `entries for ${keys.join(', ')} only`;
    throw new EnvironmentError(RELAY_ENV.topicArns, `has no entry for topic "${fault.topic}" (got ${given}); allowed: ${allowed}`);
  }
  if (fault !== undefined) {
    // The relay checks the same when it is built, but its ConfigError would not name the variable.
    const words = topicArnFaultWords(fault);
    throw new EnvironmentError(
      RELAY_ENV.topicArns,
      `has ${showValue(fault.arn)} for topic "${fault.topic}"${words.given}; allowed: ${words.allowed}`,
    );
  }
  return arns as Record<string, string>;
}
