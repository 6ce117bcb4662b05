import { showValue } from '../show-value.js';
import { RedriveOptionsError } from './errors.js';
import { topicArnsProblem } from './option-checks.js';

/**
 * `--topic-arns JSON`, else the variable `envName` (`OUTBOX_TOPIC_ARNS`, the relay's): topic name →
 * topic ARN, checked by the relay's rule before anything is read; a refusal of the variable's value
 * says it came from there.
 *
 * @example
 * ```ts
 * const topicArns = topicArnsOf(undefined, process.env, 'OUTBOX_TOPIC_ARNS');
 * ```
 */
export function topicArnsOf(value: string | undefined, env: NodeJS.ProcessEnv, envName: string): Record<string, string> {
  const text = value ?? env[envName];
  if (text === undefined || text === '')
    throw new RedriveOptionsError('--topic-arns', `is required, none given (nor ${envName}); allowed: JSON {"topic name":"topic ARN"}`);
  // A refusal of the variable's value says so: the option was not typed.
  const from = value === undefined ? ` (from ${envName})` : '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new RedriveOptionsError('--topic-arns', `got ${showValue(text)}${from}, which is not JSON; allowed: {"topic name":"topic ARN"}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || Object.values(parsed).some((v) => typeof v !== 'string')) {
    throw new RedriveOptionsError('--topic-arns', `got ${showValue(text)}${from}; allowed: an object of topic name → topic ARN strings`);
  }
  if (Object.keys(parsed).length === 0) {
    throw new RedriveOptionsError('--topic-arns', `got ${showValue(text)}${from}; allowed: at least one topic name → topic ARN`);
  }
  // The relay's own rule: a value that is no topic ARN would fail every publish, after the messages
  // were received; an ARN two topics share would republish the events of both to one.
  const problem = topicArnsProblem(parsed as Record<string, string>);
  if (problem !== undefined) {
    const example = problem.shared ? '' : `, e.g. arn:aws:sns:eu-west-1:123456789012:${problem.topic}`;
    throw new RedriveOptionsError(
      '--topic-arns',
      `topic ${JSON.stringify(problem.topic)} has ${problem.given}${from}; allowed: ${problem.allowed}${example}`,
    );
  }
  return parsed as Record<string, string>;
}
