import type { Node } from 'constructs';
import { OutboxError } from 'dynamodb-outbox';

/**
 * A `cdk -c name=value` option (or `cdk.json` context entry) has a value the app cannot use.
 *
 * @example
 * ```ts
 * appContext(new App({ context: { retainData: 'yes' } }).node); // throws ContextError (option: 'retainData')
 * ```
 */
export class ContextError extends OutboxError {
  readonly option: string;

  constructor(option: string, message: string) {
    super('INVALID_CONTEXT', `Context option ${option}: ${message}`);
    this.name = 'ContextError';
    this.option = option;
  }
}

/** The app's deployment options, from CDK context (`-c name=value` or `cdk.json`). */
export interface AppContext {
  /** `-c stackName=…` @default 'DynamoDbOutbox' */
  readonly stackName: string;
  /**
   * Keep the table, queues, bucket, logs and keys on delete, with table deletion protection;
   * `-c retainData=false` deletes them with the stack (development stacks). @default true
   */
  readonly retainData: boolean;
  /** `-c alarmEmail=…`: subscribe this address to the alarm topic. @default none */
  readonly alarmEmail?: string;
  /** `-c customerManagedKey=true`: encrypt everything with one new KMS key of the stack. @default false */
  readonly customerManagedKey: boolean;
}

const STACK_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9-]{0,127}$/;

function booleanOption(node: Node, name: string, defaultValue: boolean): boolean {
  const value: unknown = node.tryGetContext(name);
  if (value === undefined) return defaultValue;
  if (value === false || value === 'false') return false;
  if (value === true || value === 'true') return true;
  throw new ContextError(name, `got ${JSON.stringify(value)}; allowed: true or false`);
}

function stringOption(node: Node, name: string): string | undefined {
  const value: unknown = node.tryGetContext(name);
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new ContextError(name, `got ${JSON.stringify(value)}; allowed: a non-empty string`);
  return value;
}

/**
 * Reads and checks the app's context options; the e-mail address itself is checked by the
 * alarms construct.
 *
 * @example
 * ```ts
 * const options = appContext(app.node); // cdk synth -c retainData=false -c alarmEmail=oncall@example.com
 * ```
 */
export function appContext(node: Node): AppContext {
  const stackName = stringOption(node, 'stackName') ?? 'DynamoDbOutbox';
  if (!STACK_NAME_PATTERN.test(stackName)) {
    throw new ContextError('stackName', `got ${JSON.stringify(stackName)}; allowed: a letter then up to 127 letters, digits or "-"`);
  }
  return {
    stackName,
    retainData: booleanOption(node, 'retainData', true),
    alarmEmail: stringOption(node, 'alarmEmail'),
    customerManagedKey: booleanOption(node, 'customerManagedKey', false),
  };
}
