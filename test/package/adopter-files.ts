/** The files of the projects the adopter test creates: what docs/adopt.md shows a service writing. */

const config = `defineConfig({
  source: 'urn:adopter:shop',
  topics: [{ name: 'orders.fifo', fifo: true }],
  routes: { order: 'orders.fifo' },
})`;

/** Every entry point, used with its types, as a service's TypeScript would. */
const entryPoints = `import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { S3Client } from '@aws-sdk/client-s3';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { App, Stack } from 'aws-cdk-lib';
import type { SQSHandler } from 'aws-lambda';
import { defineConfig, Outbox, OutboxError, type OutboxEnvelope, parseMessage, WriteValidationError, type WriteResult } from 'dynamodb-outbox';
import { Outbox as OutboxConstruct, OutboxPropsError } from 'dynamodb-outbox/cdk';
import { type CatalogCheckResult, catalogDocument, checkCatalog } from 'dynamodb-outbox/catalog';
import { type Consumer, ConsumerOptionsError, createConsumer, createPoller, eventHandler } from 'dynamodb-outbox/consumer';
import { LEASE_TABLE, ProcessorOptionsError, processorEnvironment, type StartProcessorOptions, startProcessor } from 'dynamodb-outbox/processor';
import { type RedriveSummary, RedriveOptionsError, redriveQueueDlq } from 'dynamodb-outbox/redrive';
import { createRelayHandler, type RelayHandler, relayEnvironment, relayEventSourceSettings } from 'dynamodb-outbox/relay';
import { LocalStackError, type OutboxTestStack, startOutboxTestStack } from 'dynamodb-outbox/testing';

export const config = ${config};

const outbox = new Outbox({ config, tableName: 'orders', client: new DynamoDBClient({}) });

// docs/catalog.md: the AsyncAPI document, and the check of the catalog against it.
export const catalogCheck: CatalogCheckResult = checkCatalog(catalogDocument(config).document, config);
export const place = (id: string): Promise<WriteResult> =>
  outbox.write({ events: [{ aggregate: { type: 'order', id }, type: 'order.placed', data: { total: 42 } }] });

export const consumer: Consumer = createConsumer({
  name: 'billing',
  sources: [config.source],
  inbox: { document: {} as never, tableName: 'orders' },
  handlers: {
    'order.placed': eventHandler<{ total: number }>({ handle: (event: OutboxEnvelope<{ total: number }>) => void event.data.total }),
  },
});

// docs/adopt.md, step 5.
const document = DynamoDBDocumentClient.from(new DynamoDBClient({}));
export const billing = createConsumer({
  name: 'billing',
  sources: [config.source],
  inbox: { document, tableName: 'orders' },
  handlers: {
    'order.placed': eventHandler<{ total: number }>({
      handle: (event, tx) =>
        tx.write({ Put: { TableName: 'orders', Item: { pk: \`INVOICE#\${event.subject}\`, sk: 'INVOICE', total: event.data.total } } }),
    }),
  },
}).handler;

export const poller = createPoller({
  sqs: new SQSClient({}),
  queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/billing',
  consumer,
  concurrency: 2,
  onBatch: (result) => void result,
  onError: (error) => console.error(error.phase, error.message),
});

export const relay: RelayHandler = createRelayHandler({ relay: {} as never });

// README, "The relay".
const sns = new SNSClient({});
export const ownRelay = createRelayHandler({
  ...relayEnvironment(),
  sns: { send: (command, options) => sns.send(command, options) },
  onOutcome: (summary) => console.log(summary.published, summary.failedByReason),
});

// README, "Low-latency path".
export async function runProcessor(): Promise<void> {
  const env = processorEnvironment();
  const worker = await startProcessor({
    config: env.config, topicArns: env.topicArns, deadLetterQueueUrl: env.deadLetterQueueUrl,
    streamArn: env.streamArn, leaseTableName: env.leaseTableName, workerId: env.workerId, settings: env.settings,
    streams: new DynamoDBStreamsClient({}), document: DynamoDBDocumentClient.from(new DynamoDBClient({})),
    sns: new SNSClient({}), sqs: new SQSClient({}),
    onFailure: { s3: new S3Client({}), bucket: env.failedBatchBucket },
  });
  process.once('SIGTERM', () => void worker.stop());
}

// README, "Testing your service".
export async function readme(): Promise<void> {
  const stack = await startOutboxTestStack({ config, subscribers: [{ name: 'billing', topic: 'orders.fifo', eventTypes: ['order.placed'] }] });
  try {
    await stack.outbox.write({ events: [{ aggregate: { type: 'order', id: 'o-1' }, type: 'order.placed', data: { total: 42 } }] });
    const [message] = await stack.receive('billing', { count: 1, timeoutMs: 10_000 });
    console.log(message?.envelope?.type, message?.envelope?.aggregatesequence);
  } finally {
    await stack.stop();
  }
}

// README, "Redrive".
export const redriven = (dlqUrl: string, queueUrl: string): Promise<RedriveSummary> =>
  redriveQueueDlq({ sqs: new SQSClient({}), queueUrl: dlqUrl, targetQueueUrl: queueUrl, ratePerSecond: 50 });
export const batchSize: number = relayEventSourceSettings(config).batchSize;
export const leaseKey: string = LEASE_TABLE.partitionKey;
export type ProcessorOptions = StartProcessorOptions;
export const redrive: (queueUrl: string) => Promise<RedriveSummary> = (queueUrl) =>
  redriveQueueDlq({ queueUrl, targetQueueUrl: queueUrl, sqs: {} as never });
export const start = (): Promise<OutboxTestStack> => startOutboxTestStack({ config });
// docs/local.md: a service's own consumer typed as aws-lambda's SQSHandler, given to the test stack as it is.
const existing: SQSHandler = async (event, context) => void [event.Records.length, context.invokedFunctionArn];
export const startWithExisting = (): Promise<OutboxTestStack> =>
  startOutboxTestStack({ config, subscribers: [{ name: 'legacy', topic: 'orders.fifo', handler: () => existing }] });
export const parsed = parseMessage('{}').status;

const stack = new Stack(new App(), 'Service');
export const construct: OutboxConstruct = new OutboxConstruct(stack, 'Outbox', { config });
export const errors: (abstract new (...args: never[]) => OutboxError)[] = [
  WriteValidationError,
  OutboxPropsError,
  ConsumerOptionsError,
  ProcessorOptionsError,
  RedriveOptionsError,
  LocalStackError,
];
`;

const tsconfig = JSON.stringify(
  {
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noEmit: true,
      types: ['node'],
    },
    include: ['entry-points.ts', 'outbox.config.ts', 'lib', 'bin', 'src', 'test'],
  },
  null,
  2,
);

/**
 * The stricter checks of the tsconfig.json TypeScript 7's `tsc --init` writes, which docs/adopt.md
 * says the package's declarations and its steps' files compile under too. aws-cdk-lib's own
 * declarations do not compile under exactOptionalPropertyTypes: only theirs are skipped.
 */
const tsconfigInit = JSON.stringify(
  {
    extends: './tsconfig.json',
    compilerOptions: {
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      verbatimModuleSyntax: true,
      isolatedModules: true,
      skipLibCheck: true,
    },
  },
  null,
  2,
);

/** The pipeline on one machine: write, relay, a queue drained, a consumer handling the event. */
const pipeline = `import { defineConfig } from 'dynamodb-outbox';
import { createConsumer, eventHandler } from 'dynamodb-outbox/consumer';
import { startOutboxTestStack } from 'dynamodb-outbox/testing';

const config = ${config};
const handled = [];
let markHandled;
const handledOnce = new Promise((resolve) => {
  markHandled = resolve;
});
const billing = ({ document, tableName }) =>
  createConsumer({
    name: 'billing',
    sources: [config.source],
    inbox: { document, tableName },
    handlers: {
      'order.placed': eventHandler({
        handle: (event) => {
          handled.push(event.id);
          markHandled();
        },
      }),
    },
  }).handler;

const stack = await startOutboxTestStack({
  config,
  subscribers: [
    { name: 'audit', topic: 'orders.fifo' },
    { name: 'billing', topic: 'orders.fifo', handler: billing },
  ],
});
try {
  const { events: [written] } = await stack.outbox.write({
    events: [{ aggregate: { type: 'order', id: 'o-1' }, type: 'order.placed', data: { total: 42 } }],
  });
  const [message] = await stack.receive('audit', { count: 1, timeoutMs: 60_000 });
  const timeout = new Promise((resolve) => setTimeout(resolve, 60_000).unref());
  await Promise.race([handledOnce, timeout]);
  console.log(JSON.stringify({ written: { id: written.id }, received: { id: message?.envelope?.id, type: message?.envelope?.type }, handled }));
} finally {
  await stack.stop();
}
`;

/** A service's CDK app: the outbox from the package, a consumer of its own, cdk-nag. */
const app = `import { App, Stack, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { defineConfig } from 'dynamodb-outbox';
import { Outbox } from 'dynamodb-outbox/cdk';

const config = ${config};
const app = new App();
const stack = new Stack(app, 'Service', { env: { region: 'eu-west-1' } });
const outbox = new Outbox(stack, 'Outbox', { config });
outbox.addSubscriber('BillingConsumer', { topic: 'orders.fifo', eventTypes: ['order.placed'], consumerEntry: 'consumer.mjs' });

const packs = [new AwsSolutionsChecks(), new ServerlessChecks()];
const unacknowledged = packs.flatMap((pack) =>
  pack.validateScope(app).violations.flatMap((v) => v.violatingResources.map((r) => v.ruleName + ' @ ' + r.constructPath)),
);
app.synth();
console.log(JSON.stringify({ unacknowledged }));
`;

const consumer = `import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createConsumer, eventHandler } from 'dynamodb-outbox/consumer';

const document = DynamoDBDocumentClient.from(new DynamoDBClient({}));
export const handler = createConsumer({
  name: 'billing',
  sources: ['urn:adopter:shop'],
  inbox: { document, tableName: process.env.TABLE_NAME ?? 'orders' },
  handlers: { 'order.placed': eventHandler({ handle: () => undefined }) },
}).handler;
`;

/** /testing without its optional peers installed. */
const missingPeer = `import { defineConfig } from 'dynamodb-outbox';
import { startOutboxTestStack } from 'dynamodb-outbox/testing';

try {
  await startOutboxTestStack({ config: ${config} });
  console.log(JSON.stringify({ started: true }));
} catch (error) {
  console.log(JSON.stringify({ name: error.name, code: error.code, message: error.message }));
}
`;

/** The write helper built with an option a plain-JS service gets wrong (an unset environment variable, a missing client). */
const uncheckedOptions = `import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { defineConfig, Outbox } from 'dynamodb-outbox';

const config = ${config};
const client = new DynamoDBClient({ region: 'eu-west-1' });
const outcomes = {};
for (const [option, options] of [
  ['tableName', { config, tableName: process.env.UNSET_TABLE_NAME, client }],
  ['client', { config, tableName: 'orders', client: undefined }],
]) {
  try {
    new Outbox(options);
    outcomes[option] = 'accepted';
  } catch (error) {
    outcomes[option] = { name: error.name, code: error.code, message: error.message };
  }
}
console.log(JSON.stringify(outcomes));
`;

export const ADOPTER_FILES = {
  service: {
    'tsconfig.json': tsconfig,
    'tsconfig.init.json': tsconfigInit,
    'entry-points.ts': entryPoints,
    'pipeline.mjs': pipeline,
    'app.mjs': app,
    'consumer.mjs': consumer,
  },
  missingPeer,
  uncheckedOptions,
} as const;
