import { GetQueueAttributesCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { DLQ_USAGE } from '../../shared/redrive/dlq-cli.js';
import { summarizeDlq } from '../../shared/redrive/dlq-summary.js';
import { redriveQueueDlq } from '../../shared/redrive/queue-dlq.js';
import { anEnvelope } from '../helpers/envelopes.js';
import { scriptedQueue } from '../helpers/scripted-queue.js';

/*
 * A dry run (and dlq summarize) holds every message it reads in flight. SQS keeps about 120,000 of
 * a standard queue in flight; past that a long poll comes back empty, not with OverLimit, so the
 * run ends as if it had read the queue whole: the summary must say it read fewer than the queue held.
 */

const DLQ = 'https://sqs.us-east-1.amazonaws.com/000000000000/billing-dlq';
const SOURCE = 'https://sqs.us-east-1.amazonaws.com/000000000000/billing';

/** A queue whose counts say 130,000 are visible, and whose receives hand out two messages, then none (the limit). */
function pastTheLimit(): SQSClient {
  const messages: Message[] = [0, 1].map((i) => ({
    MessageId: `m${i}`,
    ReceiptHandle: `r${i}`,
    Body: anEnvelope({ aggregateId: `a${i}` }).body,
  }));
  const scripted = scriptedQueue([messages], async () => ({ Successful: [], Failed: [] }));
  return {
    send: async (command: unknown) =>
      command instanceof GetQueueAttributesCommand
        ? {
            Attributes: {
              ApproximateNumberOfMessages: '130000',
              ApproximateNumberOfMessagesNotVisible: '0',
              ApproximateNumberOfMessagesDelayed: '0',
            },
          }
        : scripted.sqs.send(command as GetQueueAttributesCommand),
  } as unknown as SQSClient;
}

describe('a dry run past the in-flight limit, whose long polls come back empty', () => {
  it('queue-dlq: notes that it read 2 of about 130000 and why, rather than report the queue read whole', async () => {
    const summary = await redriveQueueDlq({ sqs: pastTheLimit(), queueUrl: DLQ, targetQueueUrl: SOURCE, dryRun: true });

    expect(summary).toMatchObject({ status: 'dry-run', before: 130_000, processed: 2, moved: 2 });
    expect(summary.notes).toEqual([
      expect.stringMatching(/^read 2 of about 130000: .*SQS keeps at most about 120,000 of a standard queue in flight/),
    ]);
  });

  it('queue-dlq: a dry run stopped by --max notes nothing', async () => {
    const summary = await redriveQueueDlq({ sqs: pastTheLimit(), queueUrl: DLQ, targetQueueUrl: SOURCE, dryRun: true, maxMessages: 2 });

    expect(summary).toMatchObject({ processed: 2 });
    expect(summary.notes).toBeUndefined();
  });

  it('dlq summarize: its note names the in-flight limit among the reasons it read fewer', async () => {
    const summary = await summarizeDlq({ sqs: pastTheLimit(), queueUrl: DLQ });

    expect(summary).toMatchObject({ status: 'completed', before: 130_000, read: 2 });
    expect(summary.notes).toEqual([
      expect.stringMatching(/^read 2 of about 130000: .*SQS keeps at most about 120,000 of a standard queue in flight/),
    ]);
  });

  it('dlq summarize --help tells the limit as the summary above meets it: completed with a note, partial only on OverLimit', () => {
    const limits = DLQ_USAGE.slice(DLQ_USAGE.indexOf('Limits:'), DLQ_USAGE.indexOf('Exit status:')).replace(/\s+/g, ' ');

    expect(limits).not.toMatch(/past that the summary stops with status partial/);
    expect(limits).toMatch(/past that its receives come back empty and the summary ends there, status completed, with a note/);
    expect(limits).toMatch(/a receive refused with OverLimit ends it with status partial/);
  });
});
