import { type Duration, Stack, Token } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { OutboxError } from '../../shared/errors.js';
import { showValue } from '../../shared/show-value.js';

/**
 * A construct was given props it cannot deploy. Thrown from the constructor, before synthesis,
 * with the construct's path, the prop, the value given and what is allowed.
 *
 * @example
 * ```ts
 * try {
 *   outbox.addSubscriber('Billing', { topic: 'invoices' });
 * } catch (error) {
 *   if (error instanceof OutboxPropsError) console.error(error.prop, error.message);
 * }
 * ```
 */
export class OutboxPropsError extends OutboxError {
  readonly prop: string;

  constructor(path: string, prop: string, message: string, options?: ErrorOptions) {
    super('INVALID_CONSTRUCT_PROPS', `Invalid props for ${path}: ${prop} ${message}`, options);
    this.name = 'OutboxPropsError';
    this.prop = prop;
  }
}

/**
 * Checks an integer prop against AWS's range; unresolved tokens are left to CloudFormation.
 *
 * @example
 * ```ts
 * checkInteger(this.node.path, 'maxReceiveCount', props.maxReceiveCount, 1, 1_000);
 * ```
 */
export function checkInteger(path: string, prop: string, value: number | undefined, min: number, max: number): void {
  if (value === undefined || Token.isUnresolved(value)) return;
  if (!Number.isInteger(value) || value < min || value > max) {
    // A value typed number may be a string from JavaScript or the CDK context: it shows quoted.
    throw new OutboxPropsError(path, prop, `is ${showValue(value)}; allowed: a whole number from ${min} to ${max}`);
  }
}

/**
 * Checks a duration prop in whole seconds against AWS's range; unresolved tokens are skipped.
 *
 * @example
 * ```ts
 * checkSeconds(this.node.path, 'timeout', props.timeout, 1, 900);
 * ```
 */
export function checkSeconds(path: string, prop: string, value: Duration | undefined, min: number, max: number): void {
  if (value === undefined || value.isUnresolved()) return;
  const seconds = value.toSeconds({ integral: false });
  if (!Number.isInteger(seconds) || seconds < min || seconds > max) {
    throw new OutboxPropsError(path, prop, `is ${value.toHumanString()}; allowed: whole seconds from ${min} to ${max}`);
  }
}

const EMAIL_PATTERN = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/**
 * Checks a prop that names an e-mail address (one at sign, a dot in the domain, no spaces);
 * unresolved tokens are skipped.
 *
 * @example
 * ```ts
 * checkEmail(this.node.path, 'alarmEmail', props.alarmEmail);
 * ```
 */
export function checkEmail(path: string, prop: string, value: string | undefined): void {
  if (value === undefined || Token.isUnresolved(value) || EMAIL_PATTERN.test(value)) return;
  throw new OutboxPropsError(path, prop, `is ${JSON.stringify(value)}; allowed: an e-mail address such as "oncall@example.com"`);
}

/**
 * Checks a duration prop that AWS takes in whole days (such as an S3 expiration), at least 1;
 * unresolved tokens are skipped.
 *
 * @example
 * ```ts
 * checkWholeDays(this.node.path, 'failedBatchRetention', props.failedBatchRetention);
 * ```
 */
export function checkWholeDays(path: string, prop: string, value: Duration | undefined): void {
  if (value === undefined || value.isUnresolved()) return;
  const days = value.toDays({ integral: false });
  if (!Number.isInteger(days) || days < 1) {
    throw new OutboxPropsError(path, prop, `is ${value.toHumanString()}; allowed: whole days, at least 1`);
  }
}

/**
 * Why a `TableV2` in `scope` cannot take a customer-managed key, or `undefined` when it can: the
 * table names its key per replica region, so the stack needs an explicit region.
 *
 * @example
 * ```ts
 * const problem = props.encryptionKey && tableKeyProblem(this);
 * if (problem) throw new OutboxPropsError(this.node.path, 'encryptionKey', problem);
 * ```
 */
export function tableKeyProblem(scope: IConstruct): string | undefined {
  const stack = Stack.of(scope);
  if (!Token.isUnresolved(stack.region)) return undefined;
  return `is set in the region-agnostic stack ${stack.stackName}; allowed: a customer-managed key only in a stack with an explicit env.region (TableV2 names the key per replica region)`;
}

/**
 * Why a duration cannot be read in milliseconds at synth, or `undefined` when it can: a token (a
 * value known only at deploy) given in another unit, which CDK cannot convert.
 *
 * @example
 * ```ts
 * const problem = millisTokenProblem(props.failover); // for Duration.seconds(parameter.valueAsNumber)
 * if (problem) throw new OutboxPropsError(this.node.path, 'failover', problem);
 * ```
 */
export function millisTokenProblem(value: Duration | undefined): string | undefined {
  if (value === undefined || !value.isUnresolved()) return undefined;
  try {
    value.toMilliseconds();
    return undefined;
  } catch {
    return `is a token (a value known only at deploy) in a unit other than milliseconds, which cannot be converted to the milliseconds it is used in at synth; allowed: a duration known at synth, or the token as Duration.millis(…)`;
  }
}

/**
 * Throws an `OutboxPropsError` for a duration {@link millisTokenProblem} refuses.
 *
 * @example
 * ```ts
 * checkMillisToken(this.node.path, 'iteratorAgeThreshold', props.iteratorAgeThreshold);
 * ```
 */
export function checkMillisToken(path: string, prop: string, value: Duration | undefined): void {
  const problem = millisTokenProblem(value);
  if (problem) throw new OutboxPropsError(path, prop, problem);
}
