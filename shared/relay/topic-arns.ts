import { snsTopicArnProblem } from '../aws/sns-topic-arn.js';
import type { TopicSettings } from '../config-types.js';

/**
 * What is wrong with a relay's topic ARNs (config topic name → topic ARN): the one rule that
 * `new Relay` and the deployed relay's `OUTBOX_TOPIC_ARNS` both apply, each wording it with its
 * own error (a `ConfigError`, an `EnvironmentError`).
 */
export type TopicArnsFault =
  /** The config topic has no ARN. */
  | { readonly kind: 'missing'; readonly topic: string }
  /** The topic's ARN is not an SNS topic's, or not of the topic's kind; `allowed` says what it should be. */
  | { readonly kind: 'invalid'; readonly topic: string; readonly arn: unknown; readonly allowed: string }
  /** `topic` has the ARN an earlier config topic, `first`, has too. */
  | { readonly kind: 'shared'; readonly topic: string; readonly first: string; readonly arn: string };

/**
 * The first fault of `arns` for the config's topics, in config order, or `undefined` when every
 * topic has an SNS topic's ARN of its kind and of its own (of either kind for a topic without
 * `fifo`, as a redrive names its topics without a config). A FIFO topic given a standard topic's
 * ARN (or the reverse) would have SNS refuse each message as the sender's fault (a deduplication
 * id, which a standard topic does not take; no message group, which a FIFO topic needs): every
 * event would go to the relay DLQ. Two topics given one ARN would send the events routed to both to that one topic,
 * and the other topic's subscribers would get none. Entries for names the config lacks are left alone.
 *
 * @example
 * ```ts
 * const fault = topicArnsFault(config.topics, topicArns);
 * ```
 */
export function topicArnsFault(
  topics: readonly (Pick<TopicSettings, 'name'> & { readonly fifo?: boolean })[],
  arns: Readonly<Record<string, unknown>>,
): TopicArnsFault | undefined {
  const topicOf = new Map<string, string>();
  for (const topic of topics) {
    const arn = Object.hasOwn(arns, topic.name) ? arns[topic.name] : undefined;
    if (arn === undefined) return { kind: 'missing', topic: topic.name };
    const problem = snsTopicArnProblem(arn, topic.fifo);
    if (problem !== undefined) return { kind: 'invalid', topic: topic.name, arn, allowed: problem };
    const first = topicOf.get(arn as string);
    if (first !== undefined) return { kind: 'shared', topic: topic.name, first, arn: arn as string };
    topicOf.set(arn as string, topic.name);
  }
  return undefined;
}

/**
 * What a refusal of an `invalid` or `shared` fault says after the ARN given (`given`, empty for an
 * invalid one) and after `allowed: `.
 */
export function topicArnFaultWords(fault: Exclude<TopicArnsFault, { kind: 'missing' }>): { given: string; allowed: string } {
  if (fault.kind === 'invalid') return { given: '', allowed: fault.allowed };
  return {
    given: `, the ARN given for topic "${fault.first}" too`,
    allowed: `a topic ARN of its own for each configured topic (the events routed to "${fault.topic}" would go to the topic of "${fault.first}")`,
  };
}
