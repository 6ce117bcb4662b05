import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import type { DlqSummary } from '../../shared/redrive/dlq-summary.js';
import { runCli } from '../helpers/cli.js';
import { anEnvelope } from '../helpers/envelopes.js';
import { queueBodies } from '../helpers/fauxqs.js';
import { emulatorForFile } from '../helpers/local.js';

const { server, clients } = await emulatorForFile();

const cli = (args: string[]) => runCli(args);

describe('dlq CLI', () => {
  it('summarizes a subscriber DLQ as JSON, then redrives one event type of it, leaving the others', async () => {
    const source = server.createQueue('dlq-cli-source');
    const dlq = server.createQueue('dlq-cli-source-dlq');
    const placed = [1, 2, 3].map((i) => anEnvelope({ type: 'order.placed', aggregateId: `o-${i}` }).body);
    const paid = anEnvelope({ type: 'order.paid', aggregateId: 'o-9' }).body;
    await clients.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: dlq.queueUrl,
        Entries: [...placed, paid, '<xml/>'].map((body, i) => ({ Id: String(i), MessageBody: body })),
      }),
    );

    const summarized = await cli(['dlq', 'summarize', '--queue-url', dlq.queueUrl, '--endpoint', server.address, '--json']);
    expect(summarized.code).toBe(0);
    const summary = JSON.parse(summarized.stdout) as DlqSummary;
    expect(summary).toMatchObject({ status: 'completed', read: 5, kinds: { relay: 0, subscriber: 4, malformed: 1 } });
    expect(summary.groups.map((g) => [g.reason, g.eventType ?? null, g.count])).toEqual([
      ['MAX_RECEIVE_COUNT_EXCEEDED', 'order.placed', 3],
      ['MALFORMED', null, 1],
      ['MAX_RECEIVE_COUNT_EXCEEDED', 'order.paid', 1],
    ]);
    expect(server.inspectQueue('dlq-cli-source-dlq')?.messages.ready).toHaveLength(5);

    const args = ['redrive', 'queue-dlq', '--queue-url', dlq.queueUrl, '--to', source.queueUrl, '--endpoint', server.address];
    const moved = await cli([...args, '--type', 'order.placed', '--since', '2026-01-01']);
    expect(moved.code).toBe(0);
    expect(moved.stdout).toMatch(/filter:\s+type order\.placed, since 2026-01-01T00:00:00\.000Z/);
    expect(moved.stdout).toMatch(/moved\s+3/);
    expect(moved.stdout).toMatch(/unmatched:\s+2 \(left in the source, untouched\)/);
    expect(new Set(queueBodies(server, 'dlq-cli-source'))).toEqual(new Set(placed));
    expect(new Set(queueBodies(server, 'dlq-cli-source-dlq'))).toEqual(new Set([paid, '<xml/>']));

    const refused = await cli([...args, '--reason', 'TIMEOUT']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'Invalid redrive option --reason: got "TIMEOUT"; allowed: PUBLISH_REJECTED, MALFORMED_SLOT, UNKNOWN_ROUTE, MAX_RECEIVE_COUNT_EXCEEDED, MALFORMED',
    );
  }, 120_000);
});
