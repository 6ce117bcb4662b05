import { type CfnElement, Stack, Token } from 'aws-cdk-lib';
import { CfnTopic, type ITopic } from 'aws-cdk-lib/aws-sns';
import { CfnQueue, type IQueue } from 'aws-cdk-lib/aws-sqs';
import { RegionInfo } from 'aws-cdk-lib/region-info';
import { OutboxPropsError } from './props-error.js';

/** Lambda refuses a function whose environment variables, names and values together, exceed 4 KB. */
export const MAX_LAMBDA_ENVIRONMENT_BYTES = 4_096;

// What a stack without an explicit env learns only at deploy is counted at its longest over the
// regions aws-cdk-lib knows: region name, partition and endpoint suffix; an account id has 12 digits.
const longest = (values: readonly (string | undefined)[]) => Math.max(...values.map((v) => v?.length ?? 0));
const LONGEST_REGION = longest(RegionInfo.regions.map((r) => r.name));
const LONGEST_PARTITION = longest(RegionInfo.regions.map((r) => r.partition));
const LONGEST_URL_SUFFIX = longest(RegionInfo.regions.map((r) => r.domainSuffix));
const ACCOUNT_ID = 12;
/** CloudFormation names a resource without a name `<stack>-<logical id>-<13 random characters>`, cut to the service's limit. */
const GENERATED_NAME_SUFFIX = 13;
const MAX_TOPIC_NAME = 256;
const MAX_QUEUE_NAME = 80;

/** The length of a pseudo parameter's value in `stack`: exact when the stack's env fixes it (or its region does), else the longest. */
function pseudoLength(stack: Stack, value: string, fromRegion: (info: RegionInfo) => string | undefined, longestValue: number): number {
  if (!Token.isUnresolved(value)) return value.length;
  const known = Token.isUnresolved(stack.region) ? undefined : fromRegion(RegionInfo.get(stack.region));
  return known?.length ?? longestValue;
}

/**
 * The length of the physical name of `resource`: the name given, or the longest CloudFormation
 * may generate when none is. An unnamed L2 resource passes its name as a token for "none", which
 * resolves to `undefined`; any other token counts at the service's limit.
 */
function physicalNameLength(resource: CfnElement, given: string | undefined, limit: number): number {
  const stack = Stack.of(resource);
  const name: unknown = given === undefined ? undefined : stack.resolve(given);
  if (typeof name === 'string') return name.length;
  const logicalId: unknown = stack.resolve(resource.logicalId);
  if (name !== undefined || Token.isUnresolved(stack.stackName) || typeof logicalId !== 'string') return limit;
  return Math.min(limit, stack.stackName.length + 1 + logicalId.length + 1 + GENERATED_NAME_SUFFIX);
}

/** A stand-in as long as the longest value `topic.topicArn` can take: `arn:<partition>:sns:<region>:<account>:<name>`. */
export function topicArnStandIn(topic: ITopic): string {
  if (!Token.isUnresolved(topic.topicArn)) return topic.topicArn;
  const stack = Stack.of(topic);
  const resource = topic.node.defaultChild;
  const name = resource instanceof CfnTopic ? physicalNameLength(resource, resource.topicName, MAX_TOPIC_NAME) : MAX_TOPIC_NAME;
  const length =
    'arn::sns:::'.length +
    pseudoLength(stack, stack.partition, (info) => info.partition, LONGEST_PARTITION) +
    pseudoLength(stack, stack.region, (info) => info.name, LONGEST_REGION) +
    pseudoLength(stack, stack.account, () => undefined, ACCOUNT_ID) +
    name;
  return 'x'.repeat(length);
}

/** A stand-in as long as the longest value `queue.queueUrl` can take: `https://sqs.<region>.<suffix>/<account>/<name>`. */
export function queueUrlStandIn(queue: IQueue): string {
  if (!Token.isUnresolved(queue.queueUrl)) return queue.queueUrl;
  const stack = Stack.of(queue);
  const resource = queue.node.defaultChild;
  const name = resource instanceof CfnQueue ? physicalNameLength(resource, resource.queueName, MAX_QUEUE_NAME) : MAX_QUEUE_NAME;
  const length =
    'https://sqs.../'.length +
    pseudoLength(stack, stack.region, (info) => info.name, LONGEST_REGION) +
    pseudoLength(stack, stack.urlSuffix, (info) => info.domainSuffix, LONGEST_URL_SUFFIX) +
    pseudoLength(stack, stack.account, () => undefined, ACCOUNT_ID) +
    name;
  return 'x'.repeat(length);
}

/**
 * The size Lambda counts for an environment (the UTF-8 bytes of every name and value), per
 * variable and in total. A value that is still a token (an ARN, a URL) is counted by its stand-in
 * in `standIns`, which must cover every such variable.
 *
 * @example
 * ```ts
 * const size = environmentSize(env, { OUTBOX_RELAY_DLQ_URL: queueUrlStandIn(dlq) });
 * if (size.total > MAX_LAMBDA_ENVIRONMENT_BYTES) throw new Error(`${size.total} bytes`);
 * ```
 */
export function environmentSize(
  environment: Readonly<Record<string, string>>,
  standIns: Readonly<Record<string, string>>,
): { readonly total: number; readonly byName: Readonly<Record<string, number>> } {
  const byName: Record<string, number> = {};
  for (const [name, value] of Object.entries(environment)) {
    const counted = Token.isUnresolved(value) ? standIns[name] : value;
    if (counted === undefined) throw new Error(`environmentSize: no stand-in for ${name}, whose value is a token`);
    byName[name] = Buffer.byteLength(name) + Buffer.byteLength(counted);
  }
  return { total: Object.values(byName).reduce((sum, n) => sum + n, 0), byName };
}

/**
 * Throws an `OutboxPropsError` on `prop` when `environment` (sized by {@link environmentSize})
 * exceeds Lambda's 4 KB, saying the size, its largest variables, the limit and `remedy`.
 *
 * @example
 * ```ts
 * checkLambdaEnvironment(this.node.path, 'config', env, standIns, 'use fewer topics');
 * ```
 */
export function checkLambdaEnvironment(
  path: string,
  prop: string,
  environment: Readonly<Record<string, string>>,
  standIns: Readonly<Record<string, string>>,
  remedy: string,
): void {
  const size = environmentSize(environment, standIns);
  if (size.total <= MAX_LAMBDA_ENVIRONMENT_BYTES) return;
  const largest = Object.entries(size.byName)
    .sort(([, a], [, b]) => b - a)
    .slice(0, 3)
    .map(([name, bytes]) => `${name} ${bytes}`)
    .join(', ');
  throw new OutboxPropsError(
    path,
    prop,
    `makes a Lambda environment of up to ${size.total} bytes (names and values, ARNs and URLs known only at deploy counted at their longest; largest: ${largest}); allowed: at most ${MAX_LAMBDA_ENVIRONMENT_BYTES} bytes (Lambda's limit for a function's environment): ${remedy}`,
  );
}
