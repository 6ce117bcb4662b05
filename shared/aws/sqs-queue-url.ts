/**
 * What an SQS queue URL looks like, checked wherever one is given (a consumer's poll, the relay's
 * dead-letter queue, a redrive's or a replay's queues), so that a URL SQS cannot take fails when
 * it is given, not at the first call after a run began, as the SDK's error.
 */

import { counted } from '../plural.js';

/** `<scheme>://<host><rest>`; the groups are the scheme, the host and the rest. */
const HTTP_URL = /^(https?):\/\/([^/?#\s]+)(.*)$/s;

/**
 * The path after the host: `/<12-digit account>/<queue name>`, where SQS names a queue with 1 to 80
 * letters, digits, `-` and `_`, a FIFO queue's with `.fifo` at the end (within the 80). No query
 * or fragment. The group is the queue's name.
 */
const QUEUE_PATH = /^\/\d{12}\/((?=[A-Za-z0-9_.-]{1,80}$)[A-Za-z0-9_-]+(?:\.fifo)?)$/;

/** An AWS host, which takes no plain http: the queue's messages would cross the network in clear. */
const AWS_HOST = /\.amazonaws\.com(?:\.cn)?(?::\d+)?$/i;

/** The form of an SQS queue URL, on AWS and on a local endpoint. */
export const SQS_QUEUE_URL_FORM =
  'https://sqs.<region>.amazonaws.com/<12-digit account>/<queue name> (http://<host>:<port>/<account>/<queue name> for a local endpoint)';

/** What an SQS queue URL may be, as the refusals say after `allowed: `. */
export const SQS_QUEUE_URL_ALLOWED = `an SQS queue URL, ${SQS_QUEUE_URL_FORM}`;

/** The queue's name, or what is wrong with `url` as an SQS queue URL. */
function parse(url: unknown): { name: string } | { fault: string } {
  if (typeof url !== 'string') return { fault: 'is not a string' };
  const match = HTTP_URL.exec(url);
  if (match === null) return { fault: 'is not an http:// or https:// URL with a host' };
  const [, scheme, host = '', rest = ''] = match;
  if (host.includes('@')) return { fault: 'holds a user name or password before its host' };
  if (scheme === 'http' && AWS_HOST.test(host)) return { fault: 'sends to AWS over plain http, in clear' };
  try {
    new URL(url);
  } catch {
    return { fault: `has ${JSON.stringify(host)} for its host and port, which is not a valid one` };
  }
  const name = QUEUE_PATH.exec(rest)?.[1];
  if (name !== undefined) return { name };
  if (rest === '' || rest === '/') return { fault: 'names no queue: /<account>/<queue name> is missing after the host' };
  const [, account, queue] = /^\/([^/?#]*)\/([^/?#]*)$/.exec(rest) ?? [];
  if (account !== undefined && !/^\d{12}$/.test(account)) return { fault: `has the account ${JSON.stringify(account)}, not 12 digits` };
  if (queue !== undefined) {
    return {
      fault: `has the queue name ${JSON.stringify(queue)} (${counted(queue.length, 'character')}), where SQS takes 1 to 80 letters, digits, "-" and "_", a FIFO queue's ending in ".fifo"`,
    };
  }
  return { fault: `has ${JSON.stringify(rest)} after its host, where /<account>/<queue name> belongs` };
}

/**
 * What is wrong with `url` as an SQS queue URL ({@link SQS_QUEUE_URL_ALLOWED}), worded to follow
 * "which" in an error; `undefined` when it is one. An endpoint without a queue
 * (`http://localhost:4566`), a queue's name or ARN, or an http URL to AWS are not.
 *
 * @example
 * ```ts
 * sqsQueueUrlFault('https://sqs.eu-west-1.amazonaws.com/123456789012/orders-view'); // undefined
 * sqsQueueUrlFault('http://localhost:4566/000000000000/orders-view'); // undefined
 * sqsQueueUrlFault('http://localhost:4566'); // 'names no queue: /<account>/<queue name> is missing after the host'
 * ```
 */
export function sqsQueueUrlFault(url: unknown): string | undefined {
  const parsed = parse(url);
  return 'fault' in parsed ? parsed.fault : undefined;
}

/** Whether a queue URL names a FIFO queue: SQS names every one `….fifo`, and no standard one so. */
export function isFifoQueueUrl(url: string): boolean {
  const parsed = parse(url);
  return 'name' in parsed && parsed.name.endsWith('.fifo');
}
