import { snsTopicArnProblem } from '../aws/sns-topic-arn.js';
import type { OutboxConfig } from '../config.js';
import { configFromEnv, requireEnv } from '../config.js';
import { EnvironmentError } from '../errors.js';
import { RELAY_ENV } from '../event-source.js';
import { deadLetterQueueUrlProblem } from './dead-letter-sender.js';

/** What a deployed relay reads from its environment at cold start. */
export interface RelayEnvironment {
  readonly config: OutboxConfig;
  readonly topicArns: Readonly<Record<string, string>>;
  readonly deadLetterQueueUrl: string;
}

/**
 * Reads the relay's environment ({@link RELAY_ENV}) once, failing with the variable's name
 * when one is missing or malformed.
 *
 * @example
 * ```ts
 * const { config, topicArns, deadLetterQueueUrl } = relayEnvironment();
 * ```
 */
export function relayEnvironment(env: NodeJS.ProcessEnv = process.env): RelayEnvironment {
  const config = configFromEnv(env, RELAY_ENV.config);
  const text = requireEnv(RELAY_ENV.topicArns, env);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new EnvironmentError(RELAY_ENV.topicArns, `is not valid JSON (${(error as Error).message})`, { cause: error });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new EnvironmentError(RELAY_ENV.topicArns, `got ${text.slice(0, 200)}; allowed: a JSON object of topic name → topic ARN`);
  }
  for (const topic of config.topics) {
    const arn = (parsed as Record<string, unknown>)[topic.name];
    if (typeof arn !== 'string' || !arn.startsWith('arn:')) {
      throw new EnvironmentError(
        RELAY_ENV.topicArns,
        `has no ARN for topic "${topic.name}" (got ${JSON.stringify(arn)}); allowed: an "arn:…" string for every configured topic`,
      );
    }
    // The relay checks the same when it is built, but its ConfigError would not name the variable.
    const problem = snsTopicArnProblem(arn, topic.fifo);
    if (problem !== undefined) {
      throw new EnvironmentError(RELAY_ENV.topicArns, `has ${JSON.stringify(arn)} for topic "${topic.name}"; allowed: ${problem}`);
    }
  }
  const deadLetterQueueUrl = requireEnv(RELAY_ENV.deadLetterQueueUrl, env);
  const problem = deadLetterQueueUrlProblem(deadLetterQueueUrl);
  if (problem !== undefined) {
    throw new EnvironmentError(
      RELAY_ENV.deadLetterQueueUrl,
      `got ${JSON.stringify(deadLetterQueueUrl.slice(0, 200))}; allowed: ${problem}`,
    );
  }
  return { config, topicArns: parsed as Record<string, string>, deadLetterQueueUrl };
}
