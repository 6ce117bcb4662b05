import { describe, expect, it } from 'vitest';
import { openMessageRecord } from '../../shared/consumer/batch-message-record.js';
import type { PreparedMessage } from '../../shared/consumer/handle-message.js';
import { UNTRACED } from '../../shared/consumer/tracing.js';
import type { MessageOutcome } from '../../shared/consumer/types.js';

describe('openMessageRecord', () => {
  const message = { messageId: 'm-1', body: '{}', messageGroupId: 'g' };
  const outcome: MessageOutcome = {
    status: 'skipped',
    messageId: 'm-1',
    reason: 'EARLIER_MESSAGE_OF_GROUP_FAILED',
    failedMessageId: 'm-0',
  };
  const ready: PreparedMessage = { status: 'done', outcome };

  it('starts a message with nothing run, reported or closed, outside any span', () => {
    const { record } = openMessageRecord(3, message, ready);
    expect(record).toMatchObject({ index: 3, message, ready, slots: [], outcomes: [], reported: 0, complete: false, closed: false });
    expect(record.scope).toBe(UNTRACED);
  });

  it('resolves settled with the outcome its settle is given, and each record with its own', async () => {
    const first = openMessageRecord(0, message, ready);
    const second = openMessageRecord(1, message, ready);
    first.record.settle(outcome);
    await expect(first.settled).resolves.toBe(outcome);
    const pending = Symbol('pending');
    await expect(Promise.race([second.settled, Promise.resolve(pending)])).resolves.toBe(pending);
  });
});
