import { BATCH_CONTENT_TYPE, CONTENT_TYPE_ATTRIBUTE, type OutboxEnvelope } from '../envelope.js';
import { MessageRejectedError } from './errors.js';
import { excerpt } from './limits.js';
import type { ParseResult } from './parse.js';
import type { ConsumerMessage, MessageAttribute } from './types.js';

/** The message attributes the relay sets, which subscription filter policies decide on. */
export const CHECKED_ATTRIBUTES = ['type', 'aggregatetype'] as const;

/** Whom a consumer trusts: the sources of its producers, and the topics whose SNS notifications it reads. */
export interface Trust {
  readonly sources: ReadonlySet<string>;
  readonly topicArns: ReadonlySet<string>;
}

const listed = (values: ReadonlySet<string>): string => [...values].map((v) => JSON.stringify(v)).join(', ');

function topicProblem(trust: Trust, topicArn: string | undefined): MessageRejectedError | undefined {
  if (topicArn !== undefined && trust.topicArns.has(topicArn)) return undefined;
  const given = topicArn === undefined ? 'no TopicArn' : `TopicArn ${excerpt(topicArn)}`;
  const allowed =
    trust.topicArns.size === 0
      ? 'raw message delivery, or SNS notifications of the topics named in the consumer option topicArns (none is named)'
      : `SNS notifications of ${listed(trust.topicArns)} (the consumer option topicArns), or raw message delivery`;
  return new MessageRejectedError('UNTRUSTED_TOPIC', `The message is an SNS notification with ${given}; allowed: ${allowed}`);
}

function attributeProblem(
  envelope: OutboxEnvelope,
  attributes: Readonly<Record<string, MessageAttribute>> | undefined,
  where: string,
): MessageRejectedError | undefined {
  if (attributes === undefined) return undefined;
  for (const name of CHECKED_ATTRIBUTES) {
    if (!Object.hasOwn(attributes, name)) continue;
    const attribute = attributes[name];
    const expected = envelope[name];
    if (attribute?.stringValue === expected) continue;
    const given = attribute?.stringValue === undefined ? `a ${attribute?.dataType ?? 'missing'} value` : excerpt(attribute.stringValue);
    return new MessageRejectedError(
      'ATTRIBUTE_MISMATCH',
      `The ${where} attribute ${name} of event ${excerpt(envelope.id)} is ${given}, but the envelope's ${name} is ${excerpt(expected)}; allowed: the envelope's own value (subscription filters decide on the attribute), or no such attribute`,
    );
  }
  return undefined;
}

/**
 * Why the message's `content-type` attribute says otherwise than its body, or `undefined`: a
 * batch is marked {@link BATCH_CONTENT_TYPE}, so a subscription may tell it without parsing.
 */
function contentTypeProblem(
  batch: boolean,
  attributes: Readonly<Record<string, MessageAttribute>> | undefined,
  where: string,
): MessageRejectedError | undefined {
  if (attributes === undefined || !Object.hasOwn(attributes, CONTENT_TYPE_ATTRIBUTE)) return undefined;
  const value = attributes[CONTENT_TYPE_ATTRIBUTE]?.stringValue;
  if ((value === BATCH_CONTENT_TYPE) === batch) return undefined;
  const body = batch ? 'a CloudEvents batch (a JSON array)' : 'one envelope';
  return new MessageRejectedError(
    'ATTRIBUTE_MISMATCH',
    `The ${where} attribute ${CONTENT_TYPE_ATTRIBUTE} is ${value === undefined ? 'not a string' : excerpt(value)}, but the body is ${body}; allowed: ${JSON.stringify(BATCH_CONTENT_TYPE)} exactly on a batch`,
  );
}

/**
 * Why a parsed message must not be trusted, or `undefined`: an SNS notification of a topic not
 * configured, an event of a source not configured, or an attribute that says otherwise than the
 * envelope (a filter policy let it through for what it is not).
 */
export function trustProblem(
  trust: Trust,
  parsed: Extract<ParseResult, { status: 'parsed' }>,
  message: ConsumerMessage,
): MessageRejectedError | undefined {
  if (parsed.delivery === 'sns-notification') {
    const problem = topicProblem(trust, parsed.topicArn);
    if (problem !== undefined) return problem;
  }
  const notified = parsed.delivery === 'sns-notification' ? parsed.messageAttributes : undefined;
  const { batch } = parsed;
  const marked = contentTypeProblem(batch, message.messageAttributes, 'message') ?? contentTypeProblem(batch, notified, 'SNS notification');
  if (marked !== undefined) return marked;
  // Every event of a batch: the attributes, once for the message, must hold for each.
  for (const envelope of parsed.envelopes) {
    if (!trust.sources.has(envelope.source)) {
      return new MessageRejectedError(
        'UNTRUSTED_SOURCE',
        `Event ${excerpt(envelope.id)} has source ${excerpt(envelope.source)}, which this consumer does not accept; allowed: ${listed(trust.sources)} (the consumer option sources)`,
      );
    }
    const problem =
      attributeProblem(envelope, message.messageAttributes, 'message') ??
      (notified === undefined ? undefined : attributeProblem(envelope, notified, 'SNS notification'));
    if (problem !== undefined) return problem;
  }
  return undefined;
}
