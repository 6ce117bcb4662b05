import { followSignal } from '../abort.js';
import { checkedConfig, configRefusal, type OutboxConfig } from '../config.js';
import { ConfigError } from '../errors.js';
import { relayIgnoredAggregateTypes } from '../publishing-paths.js';
import { showValue } from '../show-value.js';
import { DEAD_LETTER_QUEUE_URL_ALLOWED, DeadLetterSender, deadLetterQueueUrlFault } from './dead-letter-sender.js';
import type { RelayResult } from './outcome.js';
import { checkRelayDeadline, checkRelayParts } from './relay-parts.js';
import { RelayRun } from './relay-run.js';
import { retryBackoff } from './retry-delays.js';
import type { StreamRecordInput } from './stream-record.js';
import { topicArnFaultWords, topicArnsFault } from './topic-arns.js';
import type { RelayOptions, RelayRunOptions } from './types.js';

/**
 * The relay core: decodes a batch of stream records into CloudEvents envelopes, routes each
 * to its topic and publishes with `PublishBatch`, in parallel across aggregates with bounded
 * concurrency and never reordering one aggregate's events. Transient failures are retried in
 * process; what still fails is reported per record; what can never be published goes to the
 * relay DLQ. Used by the Lambda relay and the stream processor alike.
 *
 * @throws ConfigError when a configured topic has no ARN, or one that is not an SNS topic's, not of
 * the topic's kind (a FIFO topic's name ends in `.fifo`) or another topic's too, or the DLQ URL is not a standard SQS queue's URL
 * (the same check as `relayEnvironment()`'s), an `sns` or `sqs` without `send`, a `backoff` delay that is negative, NaN or over a
 * minute, or an aggregate-type selection that is no array of types
 *
 * @example
 * ```ts
 * const relay = new Relay({ config, sns, sqs, topicArns, deadLetterQueueUrl });
 * const result = await relay.relay(event.Records);
 * const failed = lowestFailedSequenceNumber(result);
 * ```
 */
export class Relay {
  private readonly deadLetters: DeadLetterSender;
  /** The options with the aggregate-type selection resolved once, not on every batch. */
  private readonly options: RelayOptions;

  constructor(given: RelayOptions) {
    // Before anything else reads it: a plain object is checked and given its defaults, as defineConfig would.
    const config = checkedConfig(given.config, (cause) => new ConfigError('config', configRefusal(cause), { cause }));
    const options = config === given.config ? given : { ...given, config };
    if (typeof options.topicArns !== 'object' || options.topicArns === null) {
      throw new ConfigError('topicArns', `got ${showValue(options.topicArns)}; allowed: an object of topic name → topic ARN`);
    }
    const fault = topicArnsFault(options.config.topics, options.topicArns);
    if (fault?.kind === 'missing') {
      throw new ConfigError(
        `topicArns.${fault.topic}`,
        `got undefined; allowed: the ARN of topic "${fault.topic}" (every configured topic needs one)`,
      );
    }
    if (fault !== undefined) {
      const { given, allowed } = topicArnFaultWords(fault);
      throw new ConfigError(`topicArns.${fault.topic}`, `got ${showValue(fault.arn)}${given}; allowed: ${allowed}`);
    }
    const dlqFault = deadLetterQueueUrlFault(options.deadLetterQueueUrl);
    if (dlqFault !== undefined) {
      throw new ConfigError(
        'deadLetterQueueUrl',
        `got ${showValue(options.deadLetterQueueUrl)}, which ${dlqFault}; allowed: ${DEAD_LETTER_QUEUE_URL_ALLOWED}`,
      );
    }
    // The type forbids both; options built at run time may still carry them.
    const { onlyAggregateTypes: only, ignoreAggregateTypes: ignore } = options as {
      onlyAggregateTypes?: unknown;
      ignoreAggregateTypes?: unknown;
    };
    if (only !== undefined && ignore !== undefined) {
      throw new ConfigError(
        'onlyAggregateTypes',
        `got both onlyAggregateTypes ${showValue(only)} and ignoreAggregateTypes ${showValue(ignore)}; allowed: at most one of them (the types published, or the types left to the other path)`,
      );
    }
    checkRelayParts(options);
    this.options =
      options.onlyAggregateTypes === undefined
        ? { ...options, ignoreAggregateTypes: options.ignoreAggregateTypes ?? relayIgnoredAggregateTypes(options.config) }
        : options;
    this.deadLetters = new DeadLetterSender(
      options.sqs,
      options.deadLetterQueueUrl,
      retryBackoff(options.config.relay.maxPublishAttempts, options.backoff),
    );
  }

  /** The config this relay routes and publishes by. */
  get config(): OutboxConfig {
    return this.options.config;
  }

  /**
   * Relays the records (in stream order) and says what happened to each. With a `deadline`
   * (epoch ms), nothing new is sent from then on: the requests in flight finish, and every
   * record not yet delivered is reported failed (`DEADLINE_REACHED`), so the caller retries
   * it instead of losing the whole batch's progress to a timeout. `signal` aborts the requests in
   * flight as well; `mayPublish` is asked before every request, and ends the sending as the
   * deadline does once it returns `false`.
   *
   * @throws ConfigError when `deadline` is no finite number, or more than 15 minutes (900000 ms) ahead
   *
   * @example
   * ```ts
   * // Sends nothing once the lease this worker publishes under may have expired.
   * const result = await relay.relay(records, { signal: cutoff.signal, mayPublish: () => Date.now() < leaseExpiresAt });
   * ```
   */
  async relay(records: readonly StreamRecordInput[], options: RelayRunOptions = {}): Promise<RelayResult> {
    checkRelayDeadline(options.deadline);
    const { signal } = options;
    if (signal === undefined) return new RelayRun(this.options, this.deadLetters, records, options).run();
    // Every request in flight, and every wait before a dead letter's retry, listens to the signal.
    const followed = followSignal(signal);
    try {
      return await new RelayRun(this.options, this.deadLetters, records, { ...options, signal: followed.signal }).run();
    } finally {
      followed.detach();
    }
  }
}
