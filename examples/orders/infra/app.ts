import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { config } from '../outbox.config.js';
import { appContext } from './app-context.js';
import { DEFAULT_CONSUMER_ENTRY, OutboxStack } from './orders-stack.js';

const app = new App();
const options = appContext(app.node);
new OutboxStack(app, options.stackName, {
  config,
  retainData: options.retainData,
  alarmEmail: options.alarmEmail,
  customerManagedKey: options.customerManagedKey,
  consumerEntry: DEFAULT_CONSUMER_ENTRY,
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  description: 'dynamodb-outbox: transactional outbox table, stream relay, SNS topics, SQS subscribers and alarms',
});

// A finding nobody acknowledged (with a reason) fails the synthesis.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }), new ServerlessChecks(app, { verbose: true }));
