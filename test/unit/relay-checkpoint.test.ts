import type { PublishBatchCommand, PublishBatchCommandOutput } from '@aws-sdk/client-sns';
import type { SendMessageCommand, SendMessageCommandOutput } from '@aws-sdk/client-sqs';
import { fc, test as fcTest } from '@fast-check/vitest';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect } from 'vitest';
import { lowestFailedSequenceNumber, Relay, type RelayRunOptions } from '../../shared/relay/index.js';
import { eventIdsOf } from '../helpers/ordering-sns.js';
import { config, deadLetterQueueUrl, topicArns } from '../helpers/relay-fixtures.js';
import { slotRecord } from '../helpers/stream-records.js';

/** A seeded generator, so a failing run replays exactly. */
function randomFrom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

const serviceError = (name: string, status: number) => Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });

/**
 * An SNS whose every request and entry meets a random fate: accepted, throttled, refused as a
 * whole (invalid, or for the deployment), failed for now or for good, the deployment's, or left
 * unanswered; answered on a later turn of the event loop, so requests overlap.
 */
function randomSns(random: () => number) {
  const sns = {
    requests: 0,
    /** Event ids in the order SNS accepted them. */
    accepted: [] as string[],
    async send(command: PublishBatchCommand): Promise<PublishBatchCommandOutput> {
      sns.requests++;
      for (let turns = Math.floor(random() * 3); turns >= 0; turns--) await new Promise((resolve) => setImmediate(resolve));
      const request = random();
      if (request < 0.04) throw serviceError('ThrottledException', 400);
      if (request < 0.07) throw serviceError('InvalidParameterException', 400);
      if (request < 0.09) throw serviceError('InternalErrorException', 500);
      if (request < 0.1) throw serviceError('AuthorizationErrorException', 403);
      const output: PublishBatchCommandOutput = { Successful: [], Failed: [], $metadata: {} };
      for (const entry of command.input.PublishBatchRequestEntries ?? []) {
        const fate = random();
        if (fate < 0.7) {
          sns.accepted.push(...eventIdsOf(entry));
          output.Successful!.push({ Id: entry.Id, MessageId: `m-${sns.accepted.length}` });
        } else if (fate < 0.85) output.Failed!.push({ Id: entry.Id, Code: 'InternalError', SenderFault: false });
        else if (fate < 0.93) output.Failed!.push({ Id: entry.Id, Code: 'InvalidParameter', SenderFault: true });
        else if (fate < 0.95) output.Failed!.push({ Id: entry.Id, Code: 'KMSDisabled', SenderFault: true });
        // Otherwise SNS says nothing of the entry: neither accepted nor failed.
      }
      return output;
    },
  };
  return sns;
}

/** A relay DLQ that sometimes fails for now and sometimes for good; `letters` holds what it took, by event id or, for a malformed slot, by record. */
function randomDlq(random: () => number) {
  const dlq = {
    letters: new Set<string>(),
    async send(command: SendMessageCommand): Promise<SendMessageCommandOutput> {
      const fate = random();
      if (fate < 0.1) throw serviceError('InternalError', 500);
      if (fate < 0.13) throw serviceError('QueueDoesNotExist', 400);
      const letter = JSON.parse(command.input.MessageBody ?? '{}') as { eventId?: string; record: { sequenceNumber: string } };
      dlq.letters.add(letter.eventId ?? `record ${letter.record.sequenceNumber}`);
      return { $metadata: {} };
    },
  };
  return dlq;
}

const idsOf = (record: DynamoDBRecord): string[] => record.dynamodb!.NewImage!.events!.L!.map((event) => event.M!.id!.S!);

describe('the checkpoint the relay reports', () => {
  fcTest.prop(
    [
      // Commits: (aggregate, events, on the standard topic, malformed).
      fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 1, max: 3 }), fc.boolean(), fc.nat(9)), {
        minLength: 1,
        maxLength: 30,
      }),
      fc.integer(),
      // 1: one event per message; 2–5: batch messages on the FIFO topic.
      fc.integer({ min: 1, max: 5 }),
      // Requests mayPublish() lets go (0: no cut-off).
      fc.nat(30),
    ],
    { numRuns: 150 },
  )(
    'never lets it pass a record with an event neither accepted by SNS nor dead-lettered, and counts only what SNS accepted',
    async (commits, seed, maxEvents, allowedRequests) => {
      const random = randomFrom(seed);
      const seqs = new Map<string, number>();
      const records = commits.map(([aggregate, events, standard, malformed], i) => {
        const type = standard ? 'payment' : 'order';
        const seq = (seqs.get(`${type}-${aggregate}`) ?? 0) + events;
        seqs.set(`${type}-${aggregate}`, seq);
        const record = slotRecord({ type, id: `a${aggregate}`, seq, events, sequenceNumber: String(1_000 + i) });
        if (malformed === 0) record.dynamodb!.NewImage!.seq = { S: 'not-a-number' };
        return record;
      });
      const sns = randomSns(random);
      const sqs = randomDlq(random);
      const batching = maxEvents === 1 ? {} : { batching: { maxEvents } };
      const relay = new Relay({
        config: { ...config, topics: config.topics.map((topic) => (topic.fifo ? { ...topic, ...batching } : topic)) },
        sns,
        sqs,
        topicArns,
        deadLetterQueueUrl,
        backoff: { baseDelayMs: 1, maxDelayMs: 2 },
      });
      const options: RelayRunOptions = allowedRequests === 0 ? {} : { mayPublish: () => sns.requests < allowedRequests };

      const result = await relay.relay(records, options);

      const retryFrom = lowestFailedSequenceNumber(result);
      const accepted = new Set(sns.accepted);
      result.outcomes.forEach((outcome, i) => {
        const record = records[i]!;
        const passed = retryFrom === undefined || BigInt(record.dynamodb!.SequenceNumber!) < BigInt(retryFrom);
        const done = (id: string) =>
          accepted.has(id) || sqs.letters.has(id) || sqs.letters.has(`record ${record.dynamodb!.SequenceNumber}`);
        // Every record the checkpoint passes, in any aggregate's lane, is delivered whole.
        if (passed) expect(outcome.status).toBe('delivered');
        if (outcome.status === 'delivered') expect(idsOf(record).every(done)).toBe(true);
        if (outcome.status === 'delivered' && !sqs.letters.has(`record ${record.dynamodb!.SequenceNumber}`)) {
          expect(outcome.published + outcome.deadLettered).toBe(idsOf(record).length);
          expect(idsOf(record).filter((id) => accepted.has(id)).length).toBe(outcome.published);
        }
      });
      // Nothing counted that SNS did not accept or the DLQ did not take; each event accepted once in a run.
      expect(result.published).toBe(sns.accepted.length);
      expect(new Set(sns.accepted).size).toBe(sns.accepted.length);
      expect(result.deadLettered).toBe(sqs.letters.size);
      // Each aggregate's events accepted in order.
      const last = new Map<string, number>();
      for (const id of sns.accepted) {
        const [type, aggregate, sequence] = id.split('-');
        expect(Number(sequence)).toBeGreaterThan(last.get(`${type}-${aggregate}`) ?? 0);
        last.set(`${type}-${aggregate}`, Number(sequence));
      }
    },
  );
});
