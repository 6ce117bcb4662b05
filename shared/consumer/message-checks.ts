/**
 * The one check of what the consumer reads of a message, whichever way it comes: a message given
 * to `consumer.process`, a record of the Lambda handler's event (the same fields: `messageId`,
 * `body`, `messageAttributes`), or a message of the SQS SDK that `fromSqsMessage` converts (the
 * same fields, capitalised). A message that fails it is refused with {@link ConsumerOptionsError}
 * naming the field, before any message of its batch is read or handled: no such message is
 * acknowledged, none is taken for what it is not. The local SQS event source refuses a received
 * message by the same rule ({@link sqsMessageFault}).
 */

import { showValue as show } from '../show-value.js';
import { ConsumerOptionsError } from './errors.js';
import { isRecord, shapeOf } from './option-checks.js';

/** What a message's body may be, as a refusal says it (`parseMessage` refuses a body by it too). */
export const BODY_ALLOWED = 'a string (the message body as text: JSON.stringify an envelope object)';

/** The names a message's fields go by. */
interface FieldNames {
  /** The fields each message has, strings, in the order they are checked: its id and its body, and what else a reader needs. */
  readonly required: readonly string[];
  readonly body: string;
  readonly attributes: string;
  readonly dataType: string;
  readonly stringValue: string;
}

/** In a `ConsumerMessage` and in a Lambda SQS record. */
const CONSUMER_FIELDS: FieldNames = {
  required: ['messageId', 'body'],
  body: 'body',
  attributes: 'messageAttributes',
  dataType: 'dataType',
  stringValue: 'stringValue',
};

/** In a message of the SQS SDK (`ReceiveMessage`). */
const SDK_FIELDS: FieldNames = {
  required: ['MessageId', 'Body'],
  body: 'Body',
  attributes: 'MessageAttributes',
  dataType: 'DataType',
  stringValue: 'StringValue',
};

/** In a message of the SQS SDK as a receiver that deletes it reads it: with its `ReceiptHandle`. */
const RECEIVED_FIELDS: FieldNames = { ...SDK_FIELDS, required: ['MessageId', 'ReceiptHandle', 'Body'] };

/** How one entry point names what it takes, and what to do with a message of the SQS SDK given to it. */
interface EntryPoint {
  readonly allowed: string;
  readonly sdkHint: string;
  /** Whether an attribute's value may be `null` for none, as Lambda writes a record's unset values (a binary attribute's `stringValue`). */
  readonly nullValues?: boolean;
}

const PROCESS: EntryPoint = {
  allowed: 'a list of { messageId, body, messageGroupId?, receiveCount?, messageAttributes? }, body the message body as text',
  sdkHint: 'convert it with fromSqsMessage',
  nullValues: true,
};

const HANDLER: EntryPoint = {
  allowed: 'an SQS record as Lambda passes it, { messageId, body, attributes, messageAttributes, … }, body the message body as text',
  sdkHint: 'convert it with fromSqsMessage and give it to consumer.process',
  nullValues: true,
};

/**
 * What is wrong with a message: the field at fault, as a path below the message ('' for the message
 * itself), what it holds and what is allowed there. Each entry point words it its own way: the
 * consumer's throw it as a {@link ConsumerOptionsError} naming the field, the local SQS event
 * source reports the message it refuses with it.
 */
export interface MessageFault {
  readonly path: string;
  readonly got: string;
  readonly allowed: string;
}

/** The field `path` names below `field`. */
const below = (field: string, path: string): string => (path === '' ? field : `${field}.${path}`);

/** Throws `fault`, if any, as a {@link ConsumerOptionsError} naming its field below `field`. */
function refuse(fault: MessageFault | undefined, field: string): void {
  if (fault !== undefined) throw new ConsumerOptionsError(below(field, fault.path), `got ${fault.got}; allowed: ${fault.allowed}`);
}

/** What is wrong with a message's id, body (and `names.required`'s others) and attributes, if anything. */
function fieldsFault(message: unknown, names: FieldNames, entry: EntryPoint): MessageFault | undefined {
  if (!isRecord(message)) return { path: '', got: show(message), allowed: entry.allowed };
  if (names === CONSUMER_FIELDS && ('Body' in message || 'MessageId' in message)) {
    return { path: '', got: 'a message of the SQS SDK (MessageId, Body)', allowed: `${entry.allowed}: ${entry.sdkHint}` };
  }
  for (const key of names.required) {
    if (typeof message[key] !== 'string') {
      return { path: key, got: shapeOf(message[key]), allowed: key === names.body ? BODY_ALLOWED : 'a string' };
    }
  }
  const attributes = message[names.attributes];
  return attributes === undefined ? undefined : attributesFault(attributes, names.attributes, names, entry);
}

/**
 * What is wrong with a message's attributes, if anything: each is to be `{ dataType, stringValue? }`,
 * as a Lambda SQS record carries them (`{ DataType, StringValue? }` in the SDK's; other keys, such
 * as a record's `binaryValue`, are left alone): one without its type, or given as a plain string,
 * would otherwise be read as something it does not say. A record's (or a message's of
 * `consumer.process`) `stringValue` may be `null`: Lambda writes a binary attribute's so (and a
 * string one's `binaryValue`); it is taken as none.
 */
function attributesFault(attributes: unknown, path: string, names: FieldNames, entry: EntryPoint): MessageFault | undefined {
  const shape = `{ ${names.dataType}, ${names.stringValue}? }${names === CONSUMER_FIELDS ? ', as a Lambda SQS record carries it' : ''}`;
  if (!isRecord(attributes)) return { path, got: show(attributes), allowed: `an object mapping attribute name to ${shape}` };
  for (const [name, attribute] of Object.entries(attributes)) {
    const at = `${path}.${name}`;
    if (!isRecord(attribute)) return { path: at, got: show(attribute), allowed: shape };
    if (names === CONSUMER_FIELDS && attribute.dataType === undefined && ('DataType' in attribute || 'StringValue' in attribute)) {
      return {
        path: at,
        got: 'an attribute of the SQS SDK (DataType, StringValue)',
        allowed: `${shape}: convert the message with fromSqsMessage`,
      };
    }
    const dataType = attribute[names.dataType];
    if (typeof dataType !== 'string') {
      return { path: `${at}.${names.dataType}`, got: shapeOf(dataType), allowed: 'a string such as "String"' };
    }
    const stringValue = attribute[names.stringValue];
    if (stringValue !== undefined && typeof stringValue !== 'string' && !(entry.nullValues && stringValue === null)) {
      return {
        path: `${at}.${names.stringValue}`,
        got: shapeOf(stringValue),
        allowed: `a string, or none (a binary attribute${entry.nullValues ? ': left out, or null as Lambda writes it' : ''})`,
      };
    }
  }
  return undefined;
}

/** Checks one message as `consumer.process` takes it. */
function checkMessage(message: unknown, field: string): void {
  refuse(fieldsFault(message, CONSUMER_FIELDS, PROCESS), field);
  if (!isRecord(message)) return;
  for (const key of ['messageGroupId', 'queueName'] as const) {
    if (message[key] !== undefined && (typeof message[key] !== 'string' || message[key] === '')) {
      throw new ConsumerOptionsError(`${field}.${key}`, `got ${show(message[key])}; allowed: a non-empty string, or leave it out`);
    }
  }
  const { receiveCount } = message;
  if (receiveCount !== undefined && !(Number.isSafeInteger(receiveCount) && (receiveCount as number) >= 1)) {
    throw new ConsumerOptionsError(
      `${field}.receiveCount`,
      `got ${show(receiveCount)}; allowed: a whole number from 1 (SQS's ApproximateReceiveCount), or leave it out`,
    );
  }
}

/** Each index of a list, holes too: `forEach` and `map` pass over a hole, which would leave its message without an outcome. */
const indices = (list: readonly unknown[]): number[] => Array.from({ length: list.length }, (_, i) => i);

/**
 * Checks what `consumer.process` was given to handle: a list of `{ messageId, body, … }`, each
 * `messageId` and `body` a string. A message of the SQS SDK (`MessageId`, `Body`) or an SQS event
 * would otherwise fail the whole batch with a `TypeError` of the first property read.
 */
export function validateMessages(messages: unknown): void {
  if (!Array.isArray(messages)) {
    const hint = isRecord(messages) && Array.isArray(messages.Records) ? ' (an SQS event: give it to consumer.handler)' : '';
    throw new ConsumerOptionsError('process.messages', `got ${shapeOf(messages)}${hint}; allowed: ${PROCESS.allowed}`);
  }
  for (const i of indices(messages)) checkMessage(messages[i], `process.messages[${i}]`);
}

/**
 * What is wrong with a record's `attributes` (a message's `Attributes`, at `path`), if anything:
 * when there, an object whose `MessageGroupId` and `ApproximateReceiveCount`, the ones the
 * consumer reads, are strings.
 */
function systemAttributesFault(attributes: unknown, path: string): MessageFault | undefined {
  if (attributes === undefined) return undefined;
  if (!isRecord(attributes)) {
    return { path, got: show(attributes), allowed: 'the SQS system attributes, { ApproximateReceiveCount?, MessageGroupId?, … }' };
  }
  for (const key of ['MessageGroupId', 'ApproximateReceiveCount'] as const) {
    if (attributes[key] !== undefined && typeof attributes[key] !== 'string') {
      return { path: `${path}.${key}`, got: show(attributes[key]), allowed: 'a string, as SQS writes it' };
    }
  }
  return undefined;
}

/**
 * Checks one record of an SQS event as the Lambda handler (or `fromSqsRecord`) reads it: its
 * `messageId`, `body` and `messageAttributes` as `consumer.process` takes them, its `attributes`
 * (when there) an object whose `MessageGroupId` and `ApproximateReceiveCount` are strings, its
 * `eventSourceARN` a string. Lambda builds every record so; one built otherwise (by a test, a
 * replay, an event source of one's own) is refused as `consumer.process` refuses its message.
 */
export function checkRecord(record: unknown, field: string): void {
  refuse(fieldsFault(record, CONSUMER_FIELDS, HANDLER), field);
  if (!isRecord(record)) return;
  refuse(systemAttributesFault(record.attributes, 'attributes'), field);
  const { eventSourceARN } = record;
  if (eventSourceARN !== undefined && typeof eventSourceARN !== 'string') {
    throw new ConsumerOptionsError(`${field}.eventSourceARN`, `got ${show(eventSourceARN)}; allowed: the queue's ARN, a string`);
  }
}

/** Checks the records of the Lambda handler's event, each as {@link checkRecord} does, before any is read. */
export function validateRecords(records: readonly unknown[]): void {
  for (const i of indices(records)) checkRecord(records[i], `handler.event.Records[${i}]`);
}

const SDK_MESSAGE: EntryPoint = {
  allowed: 'a message as ReceiveMessage returns it, { MessageId, Body, Attributes?, MessageAttributes? }',
  sdkHint: '',
};

/**
 * What is wrong with a message of the SQS SDK, if anything, by the rule `fromSqsMessage` reads it
 * by: `MessageId` and `Body` strings (SQS always sends both; a missing `Body` is not taken for an
 * empty one), `MessageAttributes` `{ DataType, StringValue? }` each, `Attributes` (when there) an
 * object whose `MessageGroupId` and `ApproximateReceiveCount` are strings. With `receiptHandle`,
 * its `ReceiptHandle` is to be a string too (after `MessageId`), as a receiver that deletes it
 * needs: the local SQS event source.
 */
export function sqsMessageFault(message: unknown, options: { readonly receiptHandle?: boolean } = {}): MessageFault | undefined {
  const fault = fieldsFault(message, options.receiptHandle ? RECEIVED_FIELDS : SDK_FIELDS, SDK_MESSAGE);
  if (fault !== undefined || !isRecord(message)) return fault;
  return systemAttributesFault(message.Attributes, 'Attributes');
}

/** Checks a message of the SQS SDK as `fromSqsMessage` reads it ({@link sqsMessageFault}); `field` names the message. */
export function checkSqsMessage(message: unknown, field: string): void {
  refuse(sqsMessageFault(message), field);
}
