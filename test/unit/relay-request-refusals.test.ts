import { describe, expect, it } from 'vitest';
import { failedIndex } from '../../shared/local/event-source/batch-failures.js';
import { requestFailureKind } from '../../shared/relay/failure-kind.js';
import { createRelayHandler, lowestFailedSequenceNumber } from '../../shared/relay/index.js';
import { FakeSns, FakeSqs } from '../helpers/fake-sns.js';
import { relayWith } from '../helpers/relay-fixtures.js';
import { slotRecord } from '../helpers/stream-records.js';

const refusal = (name: string, status: number | undefined, extra: object = {}) =>
  Object.assign(new Error(name), { name, ...(status === undefined ? {} : { $metadata: { httpStatusCode: status } }), ...extra });

describe('request-level SNS refusals', () => {
  it.each([
    ['InvalidParameterException', 400, 'rejected'],
    ['InvalidParameterValueException', 400, 'rejected'],
    ['ThrottledException', 400, 'transient'],
    ['InternalErrorException', 500, 'transient'],
    ['AuthorizationErrorException', 403, 'deployment'],
    ['NotFoundException', 404, 'deployment'],
    ['KMSDisabledException', 400, 'deployment'],
    ['SignatureDoesNotMatch', 403, 'deployment'],
    ['RequestExpired', 400, 'deployment'],
    ['IncompleteSignature', 400, 'deployment'],
    ['UnrecognizedClientException', 400, 'deployment'],
    ['MissingAuthenticationToken', 403, 'deployment'],
    ['ECONNRESET', undefined, 'transient'],
  ] as const)('classifies a request refused with %s (%s) as an entry failure of that code: %s', (name, status, kind) => {
    expect(requestFailureKind(refusal(name, status))).toBe(kind);
  });

  it('dead-letters an event SNS refuses as a request on its own, then publishes the aggregate’s next event', async () => {
    const poison = slotRecord({ id: 'a', seq: 1, sequenceNumber: '500' });
    const next = slotRecord({ id: 'a', seq: 2, sequenceNumber: '501' });
    const poisonId = JSON.parse(JSON.stringify(poison.dynamodb!.NewImage!.events!.L![0]!.M!.id!.S));
    const sqs = new FakeSqs();
    const sns = new FakeSns(undefined, (entries) => (entries.some((e) => JSON.parse(e.Message!).id === poisonId) ? 'invalid' : 'ok'));
    const result = await relayWith(sns, sqs).relay([poison, next]);
    expect(result.outcomes).toMatchObject([
      { status: 'delivered', published: 0, deadLettered: 1 },
      { status: 'delivered', published: 1, deadLettered: 0 },
    ]);
    expect(lowestFailedSequenceNumber(result)).toBeUndefined();
    expect(JSON.parse(sqs.bodies[0]!)).toMatchObject({
      reason: 'PUBLISH_REJECTED',
      eventId: poisonId,
      detail: expect.stringMatching(/^SNS refused the request: InvalidParameterException/),
    });
  });

  it('fails the record of an event SNS refuses as a request while the relay DLQ refuses it too', async () => {
    const sns = new FakeSns(undefined, () => 'invalid');
    const result = await relayWith(sns, new FakeSqs(true)).relay([slotRecord({ id: 'a', sequenceNumber: '600' })]);
    expect(result.outcomes[0]).toMatchObject({ status: 'failed', reason: 'DEAD_LETTER_FAILED' });
    expect(lowestFailedSequenceNumber(result)).toBe('600');
  });

  it('fails the record of an event SNS refuses for the deployment (access denied) at once, saying it is not retried in this run only', async () => {
    const sns = new FakeSns(undefined, () => 'denied');
    const result = await relayWith(sns, new FakeSqs()).relay([slotRecord({ id: 'a', sequenceNumber: '650' })]);
    expect(sns.requests).toHaveLength(1);
    expect(result.outcomes[0]).toMatchObject({
      status: 'failed',
      reason: 'PUBLISH_FAILED',
      detail: expect.stringMatching(
        /^publishing event \S+ failed \(an error a retry in this run would not mend\): AuthorizationErrorException/,
      ),
    });
  });

  it('retries a request SNS throttles, and fails the record once the attempts are spent, without dead-lettering it', async () => {
    const sqs = new FakeSqs();
    const sns = new FakeSns(undefined, () => 'throttled');
    const result = await relayWith(sns, sqs).relay([slotRecord({ id: 'a', sequenceNumber: '700' })]);
    expect(result.outcomes[0]).toMatchObject({ status: 'failed', reason: 'PUBLISH_FAILED' });
    expect(sns.requests).toHaveLength(3);
    expect(sqs.bodies).toEqual([]);
  });
});

describe('a failed record without coordinates', () => {
  const coordinateless = () => {
    const record = slotRecord({ id: 'x' });
    delete record.dynamodb!.SequenceNumber;
    return record;
  };

  it('fails the whole batch: lowestFailedSequenceNumber gives the empty identifier, not a later record’s', async () => {
    const before = slotRecord({ id: 'fine', sequenceNumber: '100' });
    const after = slotRecord({ id: 'stuck', sequenceNumber: '300' });
    const sns = new FakeSns((e) => (['x', 'stuck'].includes(JSON.parse(e.Message!).subject) ? 'transient' : 'ok'));
    const result = await relayWith(sns).relay([before, coordinateless(), after]);
    expect(result.outcomes.map((o) => o.status)).toEqual(['delivered', 'failed', 'failed']);
    expect(lowestFailedSequenceNumber(result)).toBe('');
    expect(lowestFailedSequenceNumber({ outcomes: [result.outcomes[1]!] })).toBe('');
  });

  it('fails the whole batch: the Lambda handler reports an empty item identifier, which the event source takes as the whole batch', async () => {
    const records = [slotRecord({ id: 'fine', sequenceNumber: '100' }), coordinateless()];
    const sns = new FakeSns((e) => (JSON.parse(e.Message!).subject === 'x' ? 'transient' : 'ok'));
    const logger = { info: () => {}, warn: () => {}, error: () => {} };
    const metrics = { addMetric: () => {} };
    const handler = createRelayHandler({ relay: relayWith(sns), logger, metrics });
    const response = await handler({ Records: records }, undefined as never);
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: '' }] });
    expect(failedIndex(records, response)).toBe(0);
  });
});
