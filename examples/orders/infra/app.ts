import { App, Validations } from 'aws-cdk-lib';
import { config } from '../outbox.config.js';
import { appContext } from './app-context.js';
import { nagChecks } from './nag-checks.js';
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
const nag = nagChecks(app);
Validations.of(app).addPlugins(...nag.packs);
try {
  app.synth();
} finally {
  // On stderr: `cdk synth` prints the template on stdout.
  process.stderr.write(`${nag.summary()}\n`);
}
