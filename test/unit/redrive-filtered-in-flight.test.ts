import { ChangeMessageVisibilityBatchCommand, GetQueueAttributesCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { RedriveInFlightLimitError, RedriveStoppedError } from '../../shared/redrive/errors.js';
import { redriveQueueDlq } from '../../shared/redrive/queue-dlq.js';
import { anEnvelope } from '../helpers/envelopes.js';
import { scriptedQueue } from '../helpers/scripted-queue.js';

/*
 * A real run holds the messages it reads and leaves in the queue (those its filter does not match,
 * skipped or failed) until it ends, so that it reads none twice. SQS keeps about 120,000 of a
 * standard queue in flight: past that a long poll comes back empty, and the run must not take the
 * part it read for the whole queue.
 */

const DLQ = 'https://sqs.us-east-1.amazonaws.com/000000000000/billing-dlq';
const SOURCE = 'https://sqs.us-east-1.amazonaws.com/000000000000/billing';

/**
 * A DLQ whose counts are `counts` in turn (the last one again), handing out one `order.paid` and two
 * `order.placed` messages, then nothing; it records what is sent, deleted and made visible again.
 */
function dlq(counts: { visible: number; inFlight: number }[]) {
  const messages: Message[] = ['order.paid', 'order.placed', 'order.placed'].map((type, i) => ({
    MessageId: `m${i}`,
    ReceiptHandle: `r${i}`,
    Body: anEnvelope({ type, aggregateId: `a${i}` }).body,
  }));
  const scripted = scriptedQueue([messages], async (entries) => ({ Successful: entries.map((e) => ({ Id: e.Id })), Failed: [] }));
  const released: string[] = [];
  const sqs = {
    send: async (command: unknown) => {
      if (command instanceof GetQueueAttributesCommand) {
        const { visible, inFlight } = (counts.length > 1 ? counts.shift() : counts[0]) as (typeof counts)[number];
        return {
          Attributes: {
            ApproximateNumberOfMessages: String(visible),
            ApproximateNumberOfMessagesNotVisible: String(inFlight),
            ApproximateNumberOfMessagesDelayed: '0',
          },
        };
      }
      if (command instanceof ChangeMessageVisibilityBatchCommand) {
        for (const entry of command.input.Entries ?? []) if (entry.VisibilityTimeout === 0) released.push(entry.ReceiptHandle ?? '');
      }
      return scripted.sqs.send(command as GetQueueAttributesCommand);
    },
  } as unknown as SQSClient;
  return { sqs, sent: scripted.sent, released };
}

const filter = { types: ['order.paid'] };

describe('a filtered real run past the in-flight limit, whose long polls come back empty', () => {
  it('stops with a typed error and a note instead of reporting the queue read whole; what it moved stays moved, the rest is released', async () => {
    // Others hold 119,998: the two unmatched messages the run leaves fill the limit, and more are still visible.
    const q = dlq([
      { visible: 130_000, inFlight: 119_998 },
      { visible: 129_997, inFlight: 120_000 },
    ]);

    const stopped = await redriveQueueDlq({ sqs: q.sqs, queueUrl: DLQ, targetQueueUrl: SOURCE, filter }).catch((error: unknown) => error);

    expect(stopped).toBeInstanceOf(RedriveStoppedError);
    const { summary, cause } = stopped as RedriveStoppedError;
    expect(cause).toBeInstanceOf(RedriveInFlightLimitError);
    expect(cause).toMatchObject({ code: 'IN_FLIGHT_LIMIT', held: 2, holding: 'kept' });
    expect((cause as Error).message).toContain('(a receive came back empty while about 129997 were still visible) once this run held 2');
    expect((cause as Error).message).toContain('the rest of the queue was not read');
    // What helps: a filtered run holds what its filter does not match, so a wider filter (or none) or a smaller --max.
    expect((cause as Error).message).toContain(
      'Allowed: a run that holds fewer: a wider filter or none (the messages it matches are moved, not held), or at most about 2 messages read a run (maxMessages, --max on the command line)',
    );
    expect((cause as Error).message).not.toContain('narrow');
    expect(summary).toMatchObject({ status: 'interrupted', processed: 3, moved: 1, republished: 1, unmatched: 2 });
    expect(summary.notes).toEqual([expect.stringMatching(/^read 3 of about 249998: SQS handed out no more while the run held 2 /)]);
    // The matching message was sent; the unmatched ones go back untouched.
    expect(q.sent.flat().map((e) => JSON.parse(e.MessageBody ?? '{}').type)).toEqual(['order.paid']);
    expect(q.released.sort()).toEqual(['r1', 'r2']);
  });

  it('takes an empty receive far from the limit for the end of the queue', async () => {
    const q = dlq([{ visible: 3, inFlight: 0 }]);

    const summary = await redriveQueueDlq({ sqs: q.sqs, queueUrl: DLQ, targetQueueUrl: SOURCE, filter });

    expect(summary).toMatchObject({ status: 'completed', processed: 3, moved: 1, unmatched: 2 });
    expect(summary.notes).toBeUndefined();
  });
});
