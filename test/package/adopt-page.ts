/**
 * docs/adopt.md as a service follows it: the files its code blocks name, as they are written
 * there, and what the service adds around them (its CDK app, a test of its API handler).
 */

/**
 * The files of docs/adopt.md: each TypeScript code block whose first line names its file
 * (`// src/api.ts`), by that path, as written there. Step 3's block is lines of a stack's
 * constructor, so it goes into one, with an API function for step 4's handler.
 */
export function adoptPageFiles(page: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const [, block = ''] of page.matchAll(/```ts\n([\s\S]*?)```/g)) {
    const path = /^\/\/ ([\w./-]+\.ts)\b/.exec(block)?.[1];
    if (path !== undefined) files[path] = path === ADOPT_STACK ? inStack(block) : block;
  }
  return files;
}

/** The file of docs/adopt.md step 3, whose lines go into a stack's constructor. */
export const ADOPT_STACK = 'lib/orders-stack.ts';

function inStack(block: string): string {
  const lines = block.split('\n');
  const body = lines.filter((line) => !line.startsWith('import ') && !line.startsWith('//'));
  return `import { Stack, type StackProps } from 'aws-cdk-lib';
import { Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';
${lines.filter((line) => line.startsWith('import ')).join('\n')}

export class OrdersStack extends Stack {
  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    const apiFunction = new NodejsFunction(this, 'Api', { entry: 'src/api.ts', handler: 'placeOrder', runtime: Runtime.NODEJS_22_X });
${body.map((line) => (line === '' ? '' : `    ${line}`)).join('\n')}
  }
}
`;
}

/** What the service adds around docs/adopt.md's files: its CDK app, and a test of step 4's handler on the local pipeline. */
export const ADOPT_PROJECT: Readonly<Record<string, string>> = {
  'bin/app.ts': `import { App } from 'aws-cdk-lib';
import { OrdersStack } from '../lib/orders-stack.js';

new OrdersStack(new App(), 'OrdersService', { env: { region: 'eu-west-1' } });
`,
  'cdk.json': JSON.stringify({ app: 'npx tsx bin/app.ts' }),
  'test/api.test.ts': `import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { type OutboxTestStack, startOutboxTestStack } from 'dynamodb-outbox/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { config } from '../outbox.config.js';

let stack: OutboxTestStack;
beforeAll(async () => {
  stack = await startOutboxTestStack({
    config,
    subscribers: [
      { name: 'audit', topic: 'orders.fifo' },
      // Step 5's consumer, as docs/adopt.md step 6 says: imported at its first message, once the environment is set.
      { name: 'billing', topic: 'orders.fifo', handler: () => async (event, context) => (await import('../src/billing/handler.js')).handler(event, context) },
    ],
  });
  // What docs/adopt.md step 6 says to set for the handler of step 4, imported after.
  Object.assign(process.env, {
    TABLE_NAME: stack.tableName,
    AWS_ENDPOINT_URL_DYNAMODB: stack.endpoints.dynamoDb,
    AWS_REGION: stack.region,
    AWS_ACCESS_KEY_ID: stack.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: stack.credentials.secretAccessKey,
  });
}, 120_000);
afterAll(() => stack?.stop());

it('places an order with the handler of step 4, once per request id, and step 5 bills it', async () => {
  const { placeOrder } = await import('../src/api.js');
  const first = await placeOrder('o-7', 42, 'request-1');
  const again = await placeOrder('o-7', 42, 'request-1');
  expect(again).toMatchObject({ replayed: true, events: [{ id: first.events[0]?.id, sequence: 1 }] });
  const [message] = await stack.receive('audit', { count: 1, timeoutMs: 10_000 });
  expect(message?.envelope).toMatchObject({ id: first.events[0]?.id, subject: 'o-7', data: { total: 42 } });
  await stack.waitForIdle({ timeoutMs: 10_000 });
  const invoice = await stack.clients.document.send(new GetCommand({ TableName: stack.tableName, Key: { pk: 'INVOICE#o-7', sk: 'INVOICE' } }));
  expect(invoice.Item).toMatchObject({ total: 42 });
}, 30_000);
`,
};

/**
 * docs/adopt.md's config, stack, handler and consumer again under `commonjs/`, in a CommonJS
 * package as `cdk init` makes one (a package.json without `"type"`): compiled by tsc to
 * `require()` calls under `"module": "NodeNext"`, as the page says, and loaded by node itself.
 */
export function commonJsProject(adoptFiles: Readonly<Record<string, string>>): Record<string, string> {
  const files: Record<string, string> = {
    'commonjs/package.json': JSON.stringify({ name: 'commonjs-service', private: true }),
    'commonjs/tsconfig.json': JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, types: ['node'], outDir: 'out' },
      include: ['outbox.config.ts', 'lib', 'src'],
    }),
    'commonjs/load.cjs': `process.env.TABLE_NAME = 'orders';
process.env.AWS_REGION = 'eu-west-1';
const loaded = {};
for (const file of ['./out/src/api.js', './out/src/billing/handler.js', './out/lib/orders-stack.js']) {
  try {
    loaded[file] = Object.keys(require(file));
  } catch (error) {
    loaded[file] = error.code ?? error.name;
  }
}
console.log(JSON.stringify(loaded));
`,
  };
  for (const path of ['outbox.config.ts', ADOPT_STACK, 'src/api.ts', 'src/billing/handler.ts'])
    files[`commonjs/${path}`] = adoptFiles[path] ?? '';
  return files;
}
