import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type {
  AggregateRef,
  EventInput,
  EventSchemaCode,
  EventSchemaIssue,
  MessageAttribute,
  OutboxConfig,
  ParsedEvents,
  ParseResult,
  BackoffOptions as RootBackoffOptions,
  TopicSettings,
  WriteRetryOptions,
  WrittenEvent,
} from 'dynamodb-outbox';
import type {
  EventSchemaCode as CatalogEventSchemaCode,
  EventSchemaIssue as CatalogEventSchemaIssue,
  EventSchemaError,
} from 'dynamodb-outbox/catalog';
import type {
  MessageAttribute as ConsumerMessageAttribute,
  ParsedEvents as ConsumerParsedEvents,
  InboxRecord,
  InboxStatus,
} from 'dynamodb-outbox/consumer';
import type {
  BatchReport,
  createProcessor,
  OnFailureBucketClient,
  OnFailureCondition,
  OnFailureReport,
  DeadLetterClient as ProcessorDeadLetterClient,
  LagByEventType as ProcessorLagByEventType,
  ProcessorOnFailureDestination,
  PublishBatchClient as ProcessorPublishBatchClient,
  ProcessorRelayOptions,
  RetryDelays as ProcessorRetryDelays,
  ProcessorWorker,
  StartProcessorOptions,
  StreamsApi,
  StreamsCallOptions,
  startProcessor,
} from 'dynamodb-outbox/processor';
import type {
  BackoffOptions,
  CorruptArchiveEntry,
  DeadLetterEvent,
  DeadLetterInfo,
  OnFailureRedriveOptions,
  RELAY_REASONS,
  DeadLetterClient as RedriveDeadLetterClient,
  PublishBatchClient as RedrivePublishBatchClient,
  RefusedEvent,
  RelayDeadLetterQueue,
  RelayDeadLetterReason,
  RelayDlqRedriveOptions,
  AggregateRef as ReplayAggregateRef,
  ReplayArchiveOptions,
  ReplayCheckpointError,
  ReplayCheckpointErrorCode,
  ReplayProgress,
  ReplaySummary,
} from 'dynamodb-outbox/redrive';
import type {
  DeadLetterClient,
  LagByEventType,
  PublishBatchClient,
  RecordCoordinates,
  RecordOutcome,
  RelayBatchSummary,
  RetryDelays,
} from 'dynamodb-outbox/relay';
import type {
  OutboxTestArchive,
  OutboxTestHandlerContext,
  OutboxTestSqsHandler,
  CorruptArchiveEntry as TestingCorruptArchiveEntry,
  RefusedEvent as TestingRefusedEvent,
  ReplayArchiveOptions as TestingReplayArchiveOptions,
  ReplayProgress as TestingReplayProgress,
  ReplaySummary as TestingReplaySummary,
} from 'dynamodb-outbox/testing';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { entryExports, entryPoints, ROOT } from '../docs/entry-exports.js';
import { reportFile } from './api-report.js';

/*
 * The types a user meets in the package's API (an option they build, a result they pass on, a
 * union they switch on) are importable by name from the entry point whose API uses them; the
 * declarations the API reports under api/ list as exported by no entry point are the reviewed
 * internal ones below, each with why a user need not name it. A new such declaration fails here
 * until it is exported or added below with its reason. Likewise a declaration the API names that
 * only another entry point exports (its user would import a second entry point to name it) is
 * exported here too, or reviewed in ELSEWHERE. The type assertions (checked by tsc) say each
 * exported name is the very type the API uses.
 */

/** Per entry point, the types exported so that a user can name what its API hands them. */
const NAMED: Readonly<Record<string, readonly string[]>> = {
  'dynamodb-outbox': ['AggregateRef', 'BackoffOptions', 'MessageAttribute', 'ParsedEvents', 'TopicSettings'],
  'dynamodb-outbox/consumer': ['InboxStatus', 'ParsedEvents'],
  'dynamodb-outbox/catalog': ['EventSchemaCode', 'EventSchemaIssue'],
  'dynamodb-outbox/relay': ['LagByEventType', 'RecordCoordinates'],
  'dynamodb-outbox/processor': [
    'DeadLetterClient',
    'LagByEventType',
    'OnFailureBucketClient',
    'OnFailureCondition',
    'ProcessorWorker',
    'PublishBatchClient',
    'RetryDelays',
    'StreamsApi',
    'StreamsCallOptions',
  ],
  'dynamodb-outbox/redrive': [
    'BackoffOptions',
    'DeadLetterClient',
    'DeadLetterEvent',
    'PublishBatchClient',
    'RelayDeadLetterReason',
    'ReplayCheckpointErrorCode',
  ],
  'dynamodb-outbox/testing': [
    'CorruptArchiveEntry',
    'OutboxTestHandlerContext',
    'RefusedEvent',
    'ReplayArchiveOptions',
    'ReplayProgress',
    'ReplaySummary',
  ],
};

/** Per entry point, the declarations its API names that stay unexported, and why a user need not name them. */
const INTERNAL: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'dynamodb-outbox': {
    TransactOperation: 'the building block of WriteOperation, which is what write() takes (the same type is /consumer TransactItem)',
  },
  'dynamodb-outbox/consumer': {
    BatchOutcome: 'the `events` member every MessageOutcome has, which a user reads through MessageOutcome',
    CatalogSource: 'the `catalog` option is given the OutboxConfig (defineConfig) itself',
    HandlerBase: 'the `schema` member TransactionHandler and ClaimHandler share; users build those (or an EventHandler)',
    HandlerLogger: 'named ConsumerLogger here (and RelayLogger in /relay)',
    INBOX_KIND: "InboxRecord's `kind` is the literal 'inbox'",
  },
  'dynamodb-outbox/relay': {
    HandlerLogger: 'named RelayLogger here (and ConsumerLogger in /consumer)',
    RelayBaseOptions: 'users build RelayOptions; the same type is named ProcessorRelayOptions in /processor',
    RelayHandlerCommonOptions: 'a member set of RelayHandlerOptions, which users build',
    RelayHandlerFromParts: 'a branch of RelayHandlerOptions, which users build',
    RelayHandlerWithRelay: 'a branch of RelayHandlerOptions, which users build',
  },
  'dynamodb-outbox/processor': {
    RelayBaseOptions: 'named ProcessorRelayOptions here',
  },
  'dynamodb-outbox/redrive': {
    StreamBatchInfo: "StreamRangeIncompleteError's constructor parameter; users read the error's fields, they do not construct it",
  },
  'dynamodb-outbox/testing': {
    LocalClients: 'named OutboxTestClients (without its `destroy`), which is what the stack hands out',
  },
};

const CONFIG = 'the config defineConfig (the root) returns, which every part is given';
const ROOT_TYPE = 'the root entry point (no optional peer) exports it beside the config';

/** Per entry point, the declarations its API names that only other entry points export, and why its user may import them there. */
const ELSEWHERE: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'dynamodb-outbox/consumer': { OutboxConfig: CONFIG, OutboxEnvelope: ROOT_TYPE },
  'dynamodb-outbox/relay': { OutboxConfig: CONFIG },
  'dynamodb-outbox/processor': {
    OutboxConfig: CONFIG,
    RelayEnvironment: 'the base of ProcessorEnvironment, whose members a user reads through it; only /relay API takes one',
  },
  'dynamodb-outbox/redrive': { OutboxConfig: CONFIG },
  'dynamodb-outbox/cdk': { OutboxConfig: CONFIG, RelayMetricName: 'a metric of /relay RELAY_METRICS, passed as its literal name' },
  'dynamodb-outbox/catalog': { OutboxConfig: CONFIG },
  'dynamodb-outbox/testing': {
    Outbox: ROOT_TYPE,
    OutboxConfig: CONFIG,
    OutboxEnvelope: ROOT_TYPE,
    ReplaySelection: 'the base of ReplayArchiveOptions (exported here), whose members a user reads through it',
  },
};

const HEADING = /^\/\/ (\w+): [\w +]+ \(exported by no entry point\)$/gm;
const ELSEWHERE_HEADING = /^\/\/ (\w+): [\w +]+ \(exported by dynamodb-outbox\b[^)]*\)$/gm;

/** The names a report under api/ lists under a heading. */
const listedIn = (specifier: string, heading: RegExp): string[] =>
  [...readFileSync(resolve(ROOT, 'api', reportFile(specifier)), 'utf8').matchAll(heading)].map((match) => match[1] ?? '').sort();

const SPECIFIERS = [...entryPoints().keys()];

describe('the types a user meets in the API', () => {
  const exported = entryExports();

  it.each(Object.entries(NAMED))('%s exports %s by name', (specifier, names) => {
    const missing = names.filter((name) => exported.get(specifier)?.has(name) !== true);
    expect(missing, `${specifier} does not export them; its API hands them to users`).toEqual([]);
  });

  it.each(SPECIFIERS)('%s names no unexported declaration but the reviewed internal ones', (specifier) => {
    const reviewed = Object.keys(INTERNAL[specifier] ?? {}).sort();
    expect(
      listedIn(specifier, HEADING),
      `api/${reportFile(specifier)} lists a declaration no entry point exports that is not reviewed here: export it (export type) from ${specifier}, or add it to INTERNAL with why a user need not name it`,
    ).toEqual(reviewed);
  });

  it.each(SPECIFIERS)('%s names no declaration only another entry point exports but the reviewed ones', (specifier) => {
    const reviewed = Object.keys(ELSEWHERE[specifier] ?? {}).sort();
    expect(
      listedIn(specifier, ELSEWHERE_HEADING),
      `api/${reportFile(specifier)} names a declaration only another entry point exports that is not reviewed here: export it (export type) from ${specifier} too, or add it to ELSEWHERE with why its user may import it there`,
    ).toEqual(reviewed);
  });

  it('are the very types the API uses (checked by tsc)', () => {
    expectTypeOf<EventInput['aggregate']>().toEqualTypeOf<AggregateRef>();
    expectTypeOf<WrittenEvent['aggregate']>().toEqualTypeOf<AggregateRef>();
    expectTypeOf<OutboxConfig['topics'][number]>().toEqualTypeOf<TopicSettings>();
    expectTypeOf<Extract<ParseResult, { readonly status: 'parsed' }>>().toExtend<ParsedEvents>();
    expectTypeOf<ConsumerParsedEvents>().toEqualTypeOf<ParsedEvents>();
    expectTypeOf<InboxRecord['status']>().toEqualTypeOf<InboxStatus>();
    expectTypeOf<RecordOutcome['record']>().toEqualTypeOf<RecordCoordinates>();
    expectTypeOf<NonNullable<RelayBatchSummary['lagByEventType']>>().toEqualTypeOf<LagByEventType>();
    expectTypeOf<NonNullable<BatchReport['lagByEventType']>>().toEqualTypeOf<ProcessorLagByEventType>();
    expectTypeOf<ProcessorOnFailureDestination['s3']>().toEqualTypeOf<OnFailureBucketClient>();
    expectTypeOf<StartProcessorOptions['streams']>().toEqualTypeOf<StreamsApi>();
    expectTypeOf<Parameters<StreamsApi['send']>[1]>().toEqualTypeOf<StreamsCallOptions | undefined>();
    expectTypeOf<OnFailureReport['condition']>().toEqualTypeOf<OnFailureCondition>();
    expectTypeOf<ReturnType<typeof createProcessor>>().toEqualTypeOf<ProcessorWorker>();
    expectTypeOf<Awaited<ReturnType<typeof startProcessor>>>().toEqualTypeOf<ProcessorWorker>();
    expectTypeOf<NonNullable<OnFailureRedriveOptions['retry']>>().toEqualTypeOf<BackoffOptions>();
    expectTypeOf<Omit<WriteRetryOptions, 'maxSequenceRaces'>>().toEqualTypeOf<RootBackoffOptions>();
    expectTypeOf<RootBackoffOptions>().toEqualTypeOf<BackoffOptions>();
    expectTypeOf<NonNullable<DeadLetterInfo['batch']>[number]>().toEqualTypeOf<DeadLetterEvent>();
    expectTypeOf<(typeof RELAY_REASONS)[number]>().toEqualTypeOf<RelayDeadLetterReason>();
    expectTypeOf<ReplayCheckpointError['code']>().toEqualTypeOf<ReplayCheckpointErrorCode>();
    expectTypeOf<Parameters<OutboxTestSqsHandler>[1]>().toEqualTypeOf<OutboxTestHandlerContext>();
    // Declared once, exported by more than one entry point: each name is the one declaration.
    type SnsParsed = Extract<ParseResult, { readonly delivery: 'sns-notification' }>;
    expectTypeOf<SnsParsed['messageAttributes'][string]>().toEqualTypeOf<MessageAttribute>();
    expectTypeOf<MessageAttribute>().toEqualTypeOf<ConsumerMessageAttribute>();
    expectTypeOf<EventSchemaError['code']>().toEqualTypeOf<CatalogEventSchemaCode>();
    expectTypeOf<EventSchemaError['issues'][number]>().toEqualTypeOf<CatalogEventSchemaIssue>();
    expectTypeOf<CatalogEventSchemaCode>().toEqualTypeOf<EventSchemaCode>();
    expectTypeOf<CatalogEventSchemaIssue>().toEqualTypeOf<EventSchemaIssue>();
    expectTypeOf<ProcessorRelayOptions['sns']>().toEqualTypeOf<ProcessorPublishBatchClient>();
    expectTypeOf<ProcessorRelayOptions['sqs']>().toEqualTypeOf<ProcessorDeadLetterClient>();
    expectTypeOf<NonNullable<ProcessorRelayOptions['backoff']>>().toEqualTypeOf<ProcessorRetryDelays>();
    expectTypeOf<ProcessorPublishBatchClient>().toEqualTypeOf<PublishBatchClient>();
    expectTypeOf<ProcessorDeadLetterClient>().toEqualTypeOf<DeadLetterClient>();
    expectTypeOf<ProcessorRetryDelays>().toEqualTypeOf<RetryDelays>();
    expectTypeOf<RelayDlqRedriveOptions['sns']>().toEqualTypeOf<RedrivePublishBatchClient>();
    expectTypeOf<OnFailureRedriveOptions['sns']>().toEqualTypeOf<RedrivePublishBatchClient>();
    expectTypeOf<RelayDeadLetterQueue['sqs']>().toEqualTypeOf<RedriveDeadLetterClient>();
    expectTypeOf<RedrivePublishBatchClient>().toEqualTypeOf<PublishBatchClient>();
    expectTypeOf<RedriveDeadLetterClient>().toEqualTypeOf<DeadLetterClient>();
    type TestingReplay = OutboxTestArchive['replay'];
    expectTypeOf<Parameters<TestingReplay>[0]>().toEqualTypeOf<Omit<TestingReplayArchiveOptions, 's3' | 'sqs' | 'bucket'>>();
    expectTypeOf<Awaited<ReturnType<TestingReplay>>>().toEqualTypeOf<TestingReplaySummary>();
    expectTypeOf<Parameters<NonNullable<TestingReplayArchiveOptions['onProgress']>>[0]>().toEqualTypeOf<TestingReplayProgress>();
    expectTypeOf<TestingReplaySummary['corrupt'][number]>().toEqualTypeOf<TestingCorruptArchiveEntry>();
    expectTypeOf<TestingReplaySummary['refused'][number]>().toEqualTypeOf<TestingRefusedEvent>();
    expectTypeOf<TestingReplayArchiveOptions>().toEqualTypeOf<ReplayArchiveOptions>();
    expectTypeOf<TestingReplaySummary>().toEqualTypeOf<ReplaySummary>();
    expectTypeOf<TestingReplayProgress>().toEqualTypeOf<ReplayProgress>();
    expectTypeOf<TestingCorruptArchiveEntry>().toEqualTypeOf<CorruptArchiveEntry>();
    expectTypeOf<TestingRefusedEvent>().toEqualTypeOf<RefusedEvent>();
    // The root's AggregateRef (an event's) and /redrive's (a replay's `aggregate` filter) are two
    // declarations of one shape, each exported by one entry point: either fits where the other is asked.
    expectTypeOf<ReplayAggregateRef>().toEqualTypeOf<AggregateRef>();
  });
});
