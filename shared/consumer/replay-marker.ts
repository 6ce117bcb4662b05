import { REPLAY_ATTRIBUTE } from '../envelope.js';
import { MessageRejectedError } from './errors.js';
import { excerpt } from './limits.js';
import type { ConsumerMessage } from './types.js';

/**
 * The replay that sent a message, from its {@link REPLAY_ATTRIBUTE} SQS message attribute: the
 * replay's id, `undefined` for a live message (no such attribute), or a rejection when the
 * attribute is there without a String value (`ATTRIBUTE_MISMATCH`), so a marker that cannot be
 * read is never mistaken for either.
 *
 * The marker is not proof: a publisher to the topic can set it on a live message too. It only
 * stops sequence tracking from reporting the message's event as a gap or out of order; the inbox
 * dedups it and the consumer's trust checks apply to it as to any other.
 *
 * @example
 * ```ts
 * const marker = replayOf(message);
 * if (marker.ok && marker.replayId !== undefined) console.log('replayed by', marker.replayId);
 * ```
 */
export function replayOf(message: ConsumerMessage): { ok: true; replayId?: string } | { ok: false; error: MessageRejectedError } {
  const attributes = message.messageAttributes;
  if (attributes === undefined || !Object.hasOwn(attributes, REPLAY_ATTRIBUTE)) return { ok: true };
  const attribute = attributes[REPLAY_ATTRIBUTE];
  const value = attribute?.stringValue;
  if (attribute?.dataType === 'String' && typeof value === 'string' && value !== '') return { ok: true, replayId: value };
  return {
    ok: false,
    error: new MessageRejectedError(
      'ATTRIBUTE_MISMATCH',
      `The message attribute ${REPLAY_ATTRIBUTE} of message ${excerpt(message.messageId)} is ${attribute?.dataType ?? 'unknown'}${value === undefined ? ' without a string value' : ` ${excerpt(value)}`}; allowed: a String holding the replay's id, or no such attribute (a live event)`,
    ),
  };
}
