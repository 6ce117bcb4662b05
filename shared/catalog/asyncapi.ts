/**
 * The AsyncAPI 3.0 document of an outbox config: its topics as channels, one `send` operation
 * per topic, and each declared (event type, version) as a message whose payload is the
 * structured CloudEvents envelope, its `data` the declared schema as JSON Schema.
 */

import type { OutboxConfig } from '../config.js';
import { dataschemaOf, type EventTypeDeclaration } from '../event-types.js';
import { type Conversion, jsonValueProblem, pointerSegment, toJsonSchema } from '../json-schema/convert.js';
import { jsonSchemaProblem } from '../json-schema/shape.js';
import { MAX_TRACESTATE_LENGTH, TRACESTATE_PATTERN } from '../tracing/trace-context.js';
import { CatalogError } from './errors.js';
import { type CatalogDocumentOptions, catalogConfig, checkDocumentOptions } from './inputs.js';

export type { CatalogDocumentOptions } from './inputs.js';

/** An AsyncAPI 3.0 document, as JSON. */
export type AsyncApiDocument = Record<string, unknown> & { readonly asyncapi: '3.0.0' };

/** Where a message's (type, version) is recorded in the document, for `checkCatalog` to find it again. */
export const EVENT_EXTENSION = 'x-outbox-event';

/** What {@link EVENT_EXTENSION} holds on each message. */
export interface CatalogEventEntry {
  readonly type: string;
  readonly version: number;
  readonly dataschema: string;
  readonly aggregateType?: string;
  /** JSON pointer of the data's JSON Schema in the document; absent when the schema has none. */
  readonly schema?: string;
}

/** The document, and what it leaves out (a schema with no JSON Schema), one sentence each. */
export interface CatalogDocument {
  readonly document: AsyncApiDocument;
  readonly warnings: readonly string[];
}

/** An id AsyncAPI takes as a component name (`[\w.-]+`), unique among `taken`. */
function componentId(wanted: string, taken: Set<string>): string {
  const safe = wanted.replace(/[^\w.-]/g, '_');
  let id = safe;
  for (let n = 2; taken.has(id); n++) id = `${safe}_${n}`;
  taken.add(id);
  return id;
}

/**
 * A W3C `traceparent` as `traceparentProblem` takes it, in the regular expression subset JSON
 * Schema recommends (no lookahead, which validators outside JavaScript may lack): its shape as the
 * `pattern`, and under `not` the values of that shape W3C calls invalid in every version (`ff`, an
 * all-zero trace id or parent id, anything after version 00's flags). A later version with fields
 * after its flags is valid, as W3C asks a receiver to take it; the write helper sends version 00.
 */
const TRACEPARENT_SCHEMA = {
  type: 'string',
  pattern: '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}(-[!-~]*)?$',
  not: { anyOf: [{ pattern: '^ff' }, { pattern: '^.{3}0{32}' }, { pattern: '^.{36}0{16}' }, { pattern: '^00.{54}' }] },
  description: 'W3C trace context of the write, when it had one.',
};

/** The write's trace context, in the envelope and as message attributes. */
const traceProperties = {
  traceparent: TRACEPARENT_SCHEMA,
  tracestate: {
    type: 'string',
    maxLength: MAX_TRACESTATE_LENGTH,
    pattern: TRACESTATE_PATTERN,
    description:
      'W3C trace state that goes with traceparent, when there is one: at most 32 comma-separated key=value list members with distinct keys (the pattern cannot check that the keys are distinct), e.g. "vendor=opaque-value".',
  },
};

/** The SNS message attributes the relay sets: subscription filter policies read `type` and `aggregatetype`. */
function headersOf(type: string, aggregateTypes: readonly string[]) {
  return {
    type: 'object',
    description:
      'SNS message attributes (SQS message attributes under raw delivery); subscription filter policies match on type and aggregatetype. The trace context, when the write had one, is also in the envelope.',
    properties: {
      type: { type: 'string', const: type },
      aggregatetype: aggregateTypes.length === 1 ? { type: 'string', const: aggregateTypes[0] } : { type: 'string', enum: aggregateTypes },
      ...traceProperties,
    },
    required: ['type', 'aggregatetype'],
  };
}

/** The structured CloudEvents envelope of one (type, version): the SNS message body. */
function envelopeOf(source: string, type: string, dataschema: string, aggregateTypes: readonly string[], data: Record<string, unknown>) {
  return {
    type: 'object',
    description: 'A CloudEvents 1.0 envelope in structured mode: the whole message body.',
    properties: {
      specversion: { type: 'string', const: '1.0' },
      id: { type: 'string', description: 'The event id (UUIDv7), unique per event; a FIFO topic deduplicates on it.' },
      source: { type: 'string', const: source },
      type: { type: 'string', const: type },
      subject: { type: 'string', description: 'The aggregate id.' },
      time: { type: 'string', format: 'date-time', description: 'When the event was written.' },
      datacontenttype: { type: 'string', const: 'application/json' },
      dataschema: {
        type: 'string',
        format: 'uri',
        const: dataschema,
        description: 'The declared event type and version data was checked against.',
      },
      aggregatetype: aggregateTypes.length === 1 ? { type: 'string', const: aggregateTypes[0] } : { type: 'string', enum: aggregateTypes },
      aggregatesequence: {
        type: 'integer',
        minimum: 1,
        description: 'The event’s position in its aggregate, per sequenceepoch: 1, 2, 3 … without gaps.',
      },
      sequenceepoch: { type: 'string', format: 'date-time', description: 'When the aggregate’s outbox slot was created.' },
      ...traceProperties,
      data,
    },
    required: [
      'specversion',
      'id',
      'source',
      'type',
      'subject',
      'time',
      'datacontenttype',
      'dataschema',
      'aggregatetype',
      'aggregatesequence',
      'sequenceepoch',
      'data',
    ],
  };
}

/** The topics a declaration's events reach: its aggregate type's, or every routed topic. */
function topicsOf(config: OutboxConfig, declaration: EventTypeDeclaration): string[] {
  const aggregateTypes = declaration.aggregateType === undefined ? Object.keys(config.routes) : [declaration.aggregateType];
  return [...new Set(aggregateTypes.map((t) => config.routes[t] as string))];
}

function channelOf(config: OutboxConfig, topic: { readonly name: string; readonly fifo: boolean }) {
  const aggregateTypes = Object.keys(config.routes).filter((t) => config.routes[t] === topic.name);
  const low = aggregateTypes.filter((t) => config.lowLatencyAggregateTypes.includes(t));
  const handover = aggregateTypes.filter((t) => config.handoverAggregateTypes.includes(t));
  const fifo =
    'FIFO topic: each aggregate’s events arrive in order. MessageGroupId = "<aggregatetype>#<subject>" (one group per aggregate; an id SNS would refuse as a group id becomes "sha256:" and the base64url SHA-256 of that text), MessageDeduplicationId = the event id.';
  return {
    address: topic.name,
    title: topic.name,
    description: [
      `SNS ${topic.fifo ? 'FIFO' : 'standard'} topic of aggregate types ${aggregateTypes.map((t) => JSON.stringify(t)).join(', ') || '(none routed)'}.`,
      topic.fifo ? fifo : 'Standard topic: no order between events.',
      low.length > 0 ? `Published by the low-latency stream processor: ${low.join(', ')}; the others by the Lambda relay.` : '',
      handover.length > 0
        ? `Moving between the two paths, published by both (each event up to twice, the first copy in order): ${handover.join(', ')}.`
        : '',
    ]
      .filter((line) => line !== '')
      .join(' '),
    messages: {} as Record<string, { $ref: string }>,
    bindings: {
      sns: {
        name: topic.name,
        ...(topic.fifo ? { ordering: { type: 'FIFO', contentBasedDeduplication: false } } : {}),
        bindingVersion: '0.1.0',
      },
    },
    'x-outbox-aggregate-types': aggregateTypes,
    ...(topic.fifo ? { 'x-outbox-fifo': { messageGroupId: '<aggregatetype>#<subject>', messageDeduplicationId: '<id>' } } : {}),
  };
}

/**
 * Refuses a declared schema whose JSON Schema is malformed (`{ type: 'foo' }`, or an object that
 * holds itself, say): the document would publish it, and its readers (code generators, `catalog
 * check`) fail on it. Checked here, where the JSON Schema is used, not by `defineConfig`:
 * converting every schema at each cold start of a function that only validates with it would cost
 * that function's start-up.
 */
function checkConverted(converted: Conversion, type: string, declaration: EventTypeDeclaration): void {
  const problem =
    converted.status === 'malformed'
      ? converted.problem
      : converted.status === 'converted'
        ? (jsonSchemaProblem(converted.schema) ?? jsonValueProblem(converted.schema))
        : undefined;
  if (problem === undefined) return;
  const vendor = String(declaration.schema?.['~standard'].vendor);
  throw new CatalogError(
    'INVALID_EVENT_SCHEMA',
    `eventTypes[${JSON.stringify(type)}]`,
    `version ${declaration.version}: its ${vendor} schema's JSON Schema (~standard.jsonSchema) is malformed: ${problem}`,
  );
}

/**
 * The AsyncAPI 3.0 document of `config`: a channel per topic (address = topic name; FIFO
 * ordering, message group and deduplication id noted), a `send` operation per channel, a message
 * per declared (event type, version) with the CloudEvents envelope as payload and the declared
 * schema's JSON Schema as its `data` (in `components.schemas`). A schema without Standard JSON
 * Schema support leaves `data` unconstrained and adds a warning. Throws a `CatalogError`
 * (`INVALID_CATALOG_OPTIONS`) on a config `defineConfig` would refuse, or on options that are
 * not `title` and `version` as non-blank strings, and (`INVALID_EVENT_SCHEMA`) on a declared
 * schema whose JSON Schema is malformed (a keyword of the wrong kind, or an object holding itself).
 *
 * @example
 * ```ts
 * const { document, warnings } = catalogDocument(config, { version: '2.1.0' });
 * await writeFile('asyncapi.json', `${JSON.stringify(document, null, 2)}\n`);
 * ```
 */
export function catalogDocument(given: OutboxConfig, options: CatalogDocumentOptions = {}): CatalogDocument {
  const config = catalogConfig(given);
  checkDocumentOptions(options);
  const warnings: string[] = [];
  const channels: Record<string, ReturnType<typeof channelOf>> = {};
  const channelIds = new Map<string, string>();
  const taken = new Set<string>();
  for (const topic of config.topics) {
    const id = componentId(topic.name, taken);
    channelIds.set(topic.name, id);
    channels[id] = channelOf(config, topic);
  }
  const messages: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  const messageIds = new Set<string>();
  if (config.eventTypes === undefined) warnings.push('The config declares no eventTypes: the document lists the topics and no messages.');
  for (const [type, versions] of Object.entries(config.eventTypes ?? {})) {
    for (const declaration of versions) {
      const id = componentId(`${type}.v${declaration.version}`, messageIds);
      const dataschema = dataschemaOf(config.source, type, declaration.version);
      const pointer = `/components/schemas/${pointerSegment(id)}`;
      const converted = toJsonSchema(declaration.schema, pointer);
      checkConverted(converted, type, declaration);
      if (converted.status === 'converted') schemas[id] = converted.schema;
      else if (converted.status === 'unavailable')
        warnings.push(`${type} version ${declaration.version}: ${converted.reason}; its message has no schema for data.`);
      const aggregateTypes = declaration.aggregateType === undefined ? Object.keys(config.routes) : [declaration.aggregateType];
      const entry: CatalogEventEntry = {
        type,
        version: declaration.version,
        dataschema,
        ...(declaration.aggregateType === undefined ? {} : { aggregateType: declaration.aggregateType }),
        ...(converted.status === 'converted' ? { schema: `#${pointer}` } : {}),
      };
      messages[id] = {
        name: type,
        title: `${type} v${declaration.version}`,
        ...(declaration.description === undefined ? {} : { summary: declaration.description }),
        contentType: 'application/cloudevents+json',
        headers: headersOf(type, aggregateTypes),
        payload: envelopeOf(
          config.source,
          type,
          dataschema,
          aggregateTypes,
          converted.status === 'converted' ? { $ref: `#${pointer}` } : {},
        ),
        [EVENT_EXTENSION]: entry,
      };
      for (const topic of topicsOf(config, declaration)) {
        const channel = channels[channelIds.get(topic) as string];
        if (channel !== undefined) channel.messages[id] = { $ref: `#/components/messages/${pointerSegment(id)}` };
      }
    }
  }
  const operations: Record<string, unknown> = {};
  for (const [id, channel] of Object.entries(channels)) {
    operations[componentId(`send.${id}`, taken)] = {
      action: 'send',
      channel: { $ref: `#/channels/${pointerSegment(id)}` },
      summary: `The outbox publishes to ${channel.address} each event committed on its aggregate types, once the transaction commits.`,
      messages: Object.keys(channel.messages).map((m) => ({ $ref: `#/channels/${pointerSegment(id)}/messages/${pointerSegment(m)}` })),
    };
  }
  const document: AsyncApiDocument = {
    asyncapi: '3.0.0',
    info: {
      title: options.title ?? `Events of ${config.source}`,
      version: options.version ?? '1.0.0',
      description: `The events ${config.source} publishes through its transactional outbox: each is written with its business change in one DynamoDB transaction and relayed from the table's stream to SNS, at least once.`,
    },
    defaultContentType: 'application/cloudevents+json',
    channels,
    operations,
    components: { messages, schemas },
  };
  return { document, warnings };
}
