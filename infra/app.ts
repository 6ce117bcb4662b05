import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Annotations, App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { config } from '../outbox.config.js';
import { appContext } from './app-context.js';
import { OutboxStack } from './outbox-stack.js';

const repoFile = (path: string): string => fileURLToPath(new URL(`../${path}`, import.meta.url));

const RELAY_ENTRY = repoFile('functions/relay/handler.ts');
const CONSUMER_ENTRY = repoFile('functions/example-consumer/handler.ts');

/**
 * A checkout that lacks a handler still synthesizes (so the stack and its checks can be reviewed)
 * by bundling a stand-in, and says so loudly: such a template must never be deployed.
 */
function entryOrStandIn(entry: string, standIn: string, warnings: string[]): string {
  if (existsSync(entry)) return entry;
  warnings.push(`${entry} is missing: bundled the stand-in ${standIn}. Do not deploy this template.`);
  return repoFile(standIn);
}

const app = new App();
const options = appContext(app.node);
const warnings: string[] = [];
const stack = new OutboxStack(app, options.stackName, {
  config,
  retainData: options.retainData,
  alarmEmail: options.alarmEmail,
  customerManagedKey: options.customerManagedKey,
  relayEntry: RELAY_ENTRY,
  consumerEntry: entryOrStandIn(CONSUMER_ENTRY, 'test/infra/fixtures/consumer-handler.ts', warnings),
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  description: 'dynamodb-outbox: transactional outbox table, stream relay, SNS topics, SQS subscribers and alarms',
});
for (const warning of warnings) {
  Annotations.of(stack).addWarningV2('outbox:stand-in-handler', warning);
  console.warn(`[outbox] ${warning}`);
}

// A finding nobody acknowledged (with a reason) fails the synthesis.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }), new ServerlessChecks(app, { verbose: true }));
