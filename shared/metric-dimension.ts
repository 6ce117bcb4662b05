/**
 * A declared event type is a CloudWatch dimension value: the relay's and the processor's
 * `lagByEventType` and the consumer's `HandledLag` name it in their `eventType` dimension. A name
 * CloudWatch refuses would make every metric batch of that type invalid at run time, and a name
 * equal to a bucket would be told apart from the bucket by no dashboard or alarm; both are
 * refused where the type is declared.
 */

import { ConfigError } from './errors.js';
import { UNDECLARED_EVENT_TYPE } from './lag-by-event-type.js';

/**
 * The consumer's bucket for a type it has no handler for (its `OTHER_EVENT_TYPE`) and the local
 * stack's for types past its per-type rows: both take it from here, beside the names the config
 * reserves.
 */
export const OTHER_BUCKET = 'other';

/** The `eventType` dimension values that stand for many types; no declared type may take one. */
export const RESERVED_EVENT_TYPE_NAMES: readonly string[] = [UNDECLARED_EVENT_TYPE, OTHER_BUCKET];

/**
 * CloudWatch's `Dimension.Value`: "Dimension values must contain only ASCII characters and must
 * include at least one non-whitespace character. ASCII control characters are not supported as
 * part of dimension values." Length: 1 to 1024 (CloudWatch API Reference, `Dimension`). Event
 * types are at most 256 characters already, well inside the length; printable ASCII is 0x20–0x7E.
 */
const DIMENSION_VALUE = /^[\x20-\x7E]+$/;

/** Whether CloudWatch takes `value` as a dimension value: printable ASCII, not all whitespace. */
export const isDimensionValue = (value: string): boolean => DIMENSION_VALUE.test(value) && value.trim() !== '';

const show = (value: string): string => JSON.stringify(value);

/**
 * Refuses a declared event type that cannot be an `eventType` dimension value, or that is named
 * like a bucket, with a {@link ConfigError} naming the type, what is wrong and what is allowed.
 *
 * @example
 * ```ts
 * checkEventTypeDimension('order.placed'); // passes
 * checkEventTypeDimension('commande.créée'); // throws ConfigError: not ASCII
 * ```
 */
export function checkEventTypeDimension(type: string): void {
  const field = `eventTypes[${show(type)}]`;
  if (RESERVED_EVENT_TYPE_NAMES.includes(type)) {
    throw new ConfigError(
      field,
      `event type ${show(type)} is reserved: it is the eventType dimension value of a bucket (${show(UNDECLARED_EVENT_TYPE)}: types the config does not declare, in the relay's and the processor's lagByEventType; ${show(OTHER_BUCKET)}: types a consumer has no handler for, in its HandledLag), and a declared type of that name could not be told apart from it; allowed: any other name`,
    );
  }
  if (!isDimensionValue(type)) {
    throw new ConfigError(
      field,
      `event type ${show(type)} cannot be a CloudWatch dimension value, which the lag metrics make it: CloudWatch takes only ASCII characters, no control characters, and at least one that is not whitespace; allowed: printable ASCII, e.g. "order.placed" (an undeclared type may use any character, counted under ${show(UNDECLARED_EVENT_TYPE)})`,
    );
  }
}
