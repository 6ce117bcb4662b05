import { GetSubscriptionAttributesCommand, ListSubscriptionsByTopicCommand } from '@aws-sdk/client-sns';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { startLocalArchiver } from '../../shared/local/stack/local-archiver.js';
import { checkSubscriptions } from '../../shared/local/stack/options.js';
import { createLocalResources, type LocalResources } from '../../shared/local/stack/resources.js';
import { testConfig } from '../helpers/factories.js';
import { emulatorForFile } from '../helpers/local.js';
import { waitFor } from '../helpers/wait.js';

const { server, clients } = await emulatorForFile();
const config = testConfig({ archive: { retentionDays: 30 } });

/** The SNS redrive target of the archive queue's subscription to a topic. */
async function archiveRedriveTarget(resources: LocalResources, topic: string): Promise<string | undefined> {
  const { Subscriptions = [] } = await clients.sns.send(new ListSubscriptionsByTopicCommand({ TopicArn: resources.topicArns[topic] }));
  const subscription = Subscriptions.find((s) => s.Endpoint === resources.archive?.queue.arn);
  const { Attributes } = await clients.sns.send(
    new GetSubscriptionAttributesCommand({ SubscriptionArn: subscription?.SubscriptionArn as string }),
  );
  return (JSON.parse(Attributes?.RedrivePolicy ?? '{}') as { deadLetterTargetArn?: string }).deadLetterTargetArn;
}

describe('local archive resources', () => {
  let resources: LocalResources;

  beforeAll(async () => {
    resources = await createLocalResources(clients, { config, subscriptions: [] });
  });

  it("gives a FIFO topic's archive subscription a FIFO DLQ and a standard topic's the archive DLQ, as OutboxArchive does", async () => {
    const archive = resources.archive!;
    expect(archive.fifoDeadLetterQueue?.name).toBe('outbox-archive-dlq.fifo');
    expect(server.inspectQueue('outbox-archive-dlq.fifo')?.attributes.FifoQueue).toBe('true');
    expect(await archiveRedriveTarget(resources, 'orders.fifo')).toBe(archive.fifoDeadLetterQueue?.arn);
    expect(await archiveRedriveTarget(resources, 'payments')).toBe(archive.deadLetterQueue.arn);
  });

  it("rejects a subscriber whose FIFO DLQ would be the archive's", () => {
    expect(() => checkSubscriptions(config, [{ name: 'outbox-archive', topic: 'orders.fifo' }])).toThrow(
      /outbox-archive-dlq\.fifo is already the archive's DLQ for FIFO topics/,
    );
  });

  it("counts what is in the archive's DLQs, the FIFO topics' one included", async () => {
    const archive = resources.archive!;
    const archiver = startLocalArchiver({
      sqs: clients.sqs,
      s3: clients.s3,
      archive,
      visibilityTimeoutSeconds: 1,
      metrics: 'discard',
      onError: (error) => {
        throw error;
      },
    });
    try {
      await clients.sqs.send(new SendMessageCommand({ QueueUrl: archive.deadLetterQueue.url, MessageBody: '{}' }));
      await clients.sqs.send(
        new SendMessageCommand({
          QueueUrl: archive.fifoDeadLetterQueue!.url,
          MessageBody: '{}',
          MessageGroupId: 'g',
          MessageDeduplicationId: 'd',
        }),
      );
      await waitFor(() => archiver.counts().deadLetters === 2, { what: "the archive's DLQs counted" });
    } finally {
      await archiver.stop();
    }
  });
});
