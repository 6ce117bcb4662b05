import { QueueDoesNotExist } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { ReplayStoppedError } from '../../shared/archive/replay-errors.js';
import type { ReplaySummary } from '../../shared/archive/replay-types.js';
import { awsSetupHint, withHint } from '../../shared/cli-aws-hint.js';
import { awsErrorHint } from '../../shared/redrive/aws-error-hint.js';
import { parseRedriveArgs } from '../../shared/redrive/cli-args.js';
import { RedriveStoppedError } from '../../shared/redrive/errors.js';
import type { RedriveSummary } from '../../shared/redrive/types.js';

const DLQ = 'https://sqs.eu-west-1.amazonaws.com/123456789012/billing-dlq';
const SOURCE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/billing';
const noQueue = () => new QueueDoesNotExist({ message: 'The specified queue does not exist.', $metadata: {} });

describe('the hint for an AWS error of how a command was set up', () => {
  it('finds the SDK error under the errors that wrap it, as a run stopped part way throws it', () => {
    const parsed = parseRedriveArgs(['redrive', 'queue-dlq', '--queue-url', DLQ, '--to', SOURCE]);
    const command = parsed as Exclude<typeof parsed, { kind: 'help' }>;
    const stopped = new RedriveStoppedError({ processed: 3 } as RedriveSummary, noQueue());
    expect(awsErrorHint(stopped, command)).toBe(
      `a queue given does not exist (--queue-url ${DLQ}, --to ${SOURCE}); allowed: URLs of existing queues, in the region the tool uses (--region, or AWS_REGION)`,
    );
    const sent = new Error(`SendMessageBatch to ${SOURCE} failed: …`, { cause: noQueue() });
    expect(awsSetupHint(new ReplayStoppedError({ sent: 0 } as ReplaySummary, sent), { queues: `--to-queue ${SOURCE}` })).toBe(
      `a queue given does not exist (--to-queue ${SOURCE}); allowed: URLs of existing queues, in the region the tool uses (--region, or AWS_REGION)`,
    );
  });

  it('says nothing answers at the endpoint given when the connection is refused', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4567'), { code: 'ECONNREFUSED' });
    expect(awsSetupHint(refused, { endpoint: 'http://127.0.0.1:4567' })).toBe(
      'nothing answers at --endpoint http://127.0.0.1:4567; allowed: the address of a running emulator (as its banner gives it), or no --endpoint for AWS itself',
    );
    expect(awsSetupHint(refused, {})).toBeUndefined();
  });

  it('ends on a chain of causes that loops, and adds nothing to other errors', () => {
    const looping = new Error('a');
    Object.assign(looping, { cause: new Error('b', { cause: looping }) });
    expect(awsSetupHint(looping, {})).toBeUndefined();
    expect(awsSetupHint(new Error('Rate exceeded', { cause: 'socket hang up' }), {})).toBeUndefined();
  });

  it('joins the message and the hint without the full stop the SDK ends its message with', () => {
    expect(withHint('The specified queue does not exist.', 'a queue given …')).toBe('The specified queue does not exist; a queue given …');
    expect(withHint('Region is missing', 'no AWS region is set')).toBe('Region is missing; no AWS region is set');
    expect(withHint('Rate exceeded.', undefined)).toBe('Rate exceeded.');
  });
});
