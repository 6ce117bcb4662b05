import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { parseEnvelope } from '../../shared/envelope.js';
import { redriveRelayDlq } from '../../shared/redrive/relay-dlq.js';
import { aRelayDeadLetter } from '../helpers/dead-letters.js';
import { testConfig } from '../helpers/factories.js';
import { queueBodies, queueDepth } from '../helpers/fauxqs.js';
import { emulatorForFile } from '../helpers/local.js';

const { server, clients } = await emulatorForFile();

describe('relay DLQ redrive of a dead letter whose topic has no ARN', () => {
  it('keeps it, saying which topic and how to give its ARN, moves the others, and moves it once the ARN is given', async () => {
    const orders = server.createTopic('orders-arns');
    const payments = server.createTopic('payments-arns');
    for (const topic of ['orders-arns', 'payments-arns']) {
      server.createQueue(`${topic}-target`);
      server.subscribe({ topic, queue: `${topic}-target`, attributes: { RawMessageDelivery: 'true' } });
    }
    const { queueUrl } = server.createQueue('relay-dlq-arns');
    const order = aRelayDeadLetter({ topic: 'orders-arns', aggregateType: 'order' });
    const payment = aRelayDeadLetter({ topic: 'payments-arns' });
    const routed = aRelayDeadLetter({ aggregateType: 'order' });
    await clients.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: [order, payment, routed].map((letter, i) => ({ Id: String(i), MessageBody: letter.body })),
      }),
    );
    // The letter without a topic (its aggregate type had no route then) is routed by the config: to orders-arns too.
    const config = testConfig({ topics: [{ name: 'orders-arns' }, { name: 'payments-arns' }], routes: { order: 'orders-arns' } });
    const run = (topicArns: Record<string, string>) => redriveRelayDlq({ sqs: clients.sqs, sns: clients.sns, queueUrl, topicArns, config });

    const first = await run({ 'payments-arns': payments.topicArn });

    expect(first.moved).toBe(1);
    const reason =
      'topic "orders-arns" has no ARN (given for "payments-arns"); give its ARN too (--topic-arns, default $OUTBOX_TOPIC_ARNS, as the relay has them; topicArns in the API), then redrive';
    expect(first.skipped.map((problem) => problem.reason)).toEqual([reason, reason]);
    expect(queueDepth(server, 'relay-dlq-arns')).toBe(2);
    expect(queueBodies(server, 'payments-arns-target').map((body) => parseEnvelope(body).id)).toEqual([payment.eventId]);

    const second = await run({ 'payments-arns': payments.topicArn, 'orders-arns': orders.topicArn });

    expect(second).toMatchObject({ moved: 2, skipped: [] });
    expect(queueDepth(server, 'relay-dlq-arns')).toBe(0);
    const delivered = queueBodies(server, 'orders-arns-target').map((body) => parseEnvelope(body).id);
    expect(delivered.sort()).toEqual([order.eventId, routed.eventId].sort());
  }, 60_000);
});
