import type { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { parseRedriveArgs } from '../../shared/redrive/cli-args.js';
import { RedriveOptionsError } from '../../shared/redrive/errors.js';
import { redriveOnFailure } from '../../shared/redrive/on-failure.js';
import { redriveRelayDlq } from '../../shared/redrive/relay-dlq.js';

const DLQ = 'https://sqs.eu-west-1.amazonaws.com/123456789012/relay-dlq';
const arn = (name: string) => `arn:aws:sns:eu-west-1:123456789012:${name}`;
/** Two config topics given one ARN: the events routed to "invoices" would go to the topic of "orders". */
const SHARED = { orders: arn('orders'), invoices: arn('orders') };
const SHARED_DETAIL = `got "${arn('orders')}", the ARN given for topic "orders" too; allowed: a topic ARN of its own for each configured topic (the events routed to "invoices" would go to the topic of "orders")`;

/** A client that records what it is sent and answers nothing. */
function recorder(): { client: never; sent: unknown[] } {
  const sent: unknown[] = [];
  return { client: { send: async (command: unknown) => sent.push(command) } as never, sent };
}

describe('a redrive refuses two topics sharing one ARN, by the relay’s rule, before reading anything', () => {
  it('redriveRelayDlq', async () => {
    const { client, sent } = recorder();
    const error = await redriveRelayDlq({ sqs: client as SQSClient, sns: client, queueUrl: DLQ, topicArns: SHARED }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RedriveOptionsError);
    expect(error).toMatchObject({ field: 'topicArns.invoices', detail: SHARED_DETAIL });
    expect(sent).toEqual([]);
  });

  it('redriveOnFailure, from S3 and from SQS', async () => {
    const { client, sent } = recorder();
    const config = defineConfig({
      source: 'urn:test',
      topics: [{ name: 'orders' }, { name: 'invoices' }],
      routes: { order: 'orders', invoice: 'invoices' },
    });
    for (const source of [
      { s3: client, bucket: 'relay-failures' },
      { sqs: client, queueUrl: DLQ },
    ]) {
      const error = await redriveOnFailure({ source, sns: client, streams: client, config, topicArns: SHARED }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RedriveOptionsError);
      expect(error).toMatchObject({
        field: 'topicArns.invoices',
        message: `Invalid redrive option topicArns.invoices: ${SHARED_DETAIL}`,
      });
    }
    expect(sent).toEqual([]);
  });

  it('the command line, from --topic-arns and from OUTBOX_TOPIC_ARNS', () => {
    const detail = `topic "invoices" has "${arn('orders')}", the ARN given for topic "orders" too; allowed: a topic ARN of its own for each configured topic (the events routed to "invoices" would go to the topic of "orders")`;
    const refusal = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return error;
      }
      throw new Error('accepted');
    };
    const json = JSON.stringify(SHARED);
    for (const kind of ['relay-dlq', 'on-failure']) {
      const fromFlag = refusal(() => parseRedriveArgs(['redrive', kind, '--queue-url', DLQ, '--topic-arns', json], {}));
      expect(fromFlag).toBeInstanceOf(RedriveOptionsError);
      expect(fromFlag).toMatchObject({ message: `Invalid redrive option --topic-arns: ${detail}` });
      const fromEnv = refusal(() => parseRedriveArgs(['redrive', kind, '--queue-url', DLQ], { OUTBOX_TOPIC_ARNS: json }));
      expect(fromEnv).toMatchObject({ field: '--topic-arns', detail: detail.replace('" too;', '" too (from OUTBOX_TOPIC_ARNS);') });
    }
  });

  it('takes distinct ARNs, of either kind when no config says which', () => {
    const topicArns = { orders: arn('orders'), 'refunds.fifo': arn('refunds.fifo') };
    expect(parseRedriveArgs(['redrive', 'relay-dlq', '--queue-url', DLQ, '--topic-arns', JSON.stringify(topicArns)], {})).toMatchObject({
      topicArns,
    });
  });
});
