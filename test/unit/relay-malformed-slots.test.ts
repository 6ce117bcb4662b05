import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { deadLetterRawImage, MAX_DEAD_LETTER_MESSAGE_BYTES, type RelayDeadLetter } from '../../shared/dead-letter.js';
import { decodeStreamRecord } from '../../shared/relay/decode.js';
import { Relay } from '../../shared/relay/index.js';
import { FakeSns, FakeSqs } from '../helpers/fake-sns.js';
import { slotRecord } from '../helpers/stream-records.js';

const config = defineConfig({
  source: 'urn:test:unit',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'fast' }],
  routes: { order: 'orders.fifo', quick: 'fast' },
  lowLatencyAggregateTypes: ['quick'],
});
const topicArns = {
  'orders.fifo': 'arn:aws:sns:us-east-1:000000000000:orders.fifo',
  fast: 'arn:aws:sns:us-east-1:000000000000:fast',
};
const deadLetterQueueUrl = 'http://localhost/000000000000/relay-dlq';

/** A slot record (hand-written, say) whose first event's `data` text is `data`. */
function slotWithData(data: string) {
  const record = slotRecord({ id: 'o-bad' });
  record.dynamodb!.NewImage!.events!.L![0]!.M!.data = { S: data };
  return record;
}

describe('relay: slots whose event data is not one JSON value', () => {
  it.each([
    ['text that is not JSON', 'not json'],
    ['data that would add fields to the envelope and overrule its id and subject', '1,"id":"forged-id","subject":"someone-else"'],
    ['two JSON values', '{} {}'],
  ])('dead-letters a slot with %s as MALFORMED_SLOT instead of publishing it', async (_, data) => {
    const sns = new FakeSns();
    const sqs = new FakeSqs();
    const relay = new Relay({ config, sns, sqs, topicArns, deadLetterQueueUrl, ignoreAggregateTypes: ['quick'] });

    const result = await relay.relay([slotWithData(data)]);

    expect(sns.requests).toEqual([]);
    expect(result.deadLettered).toBe(1);
    const letter = JSON.parse(sqs.bodies[0]!) as RelayDeadLetter;
    expect(letter).toMatchObject({ reason: 'MALFORMED_SLOT', detail: expect.stringContaining('events[0].data is not one JSON value') });
  });
});

describe('relay: a malformed slot when the low-latency path is deployed', () => {
  const brokenSlot = (type: string) => {
    const record = slotRecord({ type, id: `${type}-1` });
    record.dynamodb!.NewImage!.seq = { S: 'x' };
    return record;
  };

  it.each(['order', 'quick'])('leaves a malformed %s slot to the one path that publishes its aggregate type', (type) => {
    const byProcessor = decodeStreamRecord(brokenSlot(type), config, { onlyAggregateTypes: config.lowLatencyAggregateTypes });
    const byLambda = decodeStreamRecord(brokenSlot(type), config, { ignoreAggregateTypes: config.lowLatencyAggregateTypes });

    expect([byProcessor.status, byLambda.status]).toEqual(type === 'quick' ? ['malformed', 'ignored'] : ['ignored', 'malformed']);
  });

  it('leaves a slot without a readable aggregate type to the processor, as the relay’s filter never passes it', () => {
    const record = brokenSlot('order');
    delete record.dynamodb!.NewImage!.aggregateType;

    expect(decodeStreamRecord(record, config, { onlyAggregateTypes: ['quick'] }).status).toBe('malformed');
  });
});

describe('relay: a malformed slot with a binary attribute, as the stream processor reads it', () => {
  it('dead-letters its raw image with the binary as base64, as Lambda delivers it, not as an object of one field per byte', async () => {
    const bytes = new Uint8Array(Array.from({ length: 300_000 }, (_, i) => i % 256));
    const record = slotRecord({ id: 'o-binary' }) as unknown as { dynamodb: { NewImage: Record<string, unknown> } };
    // A `source` that is bytes: malformed, and read through the SDK as a Uint8Array.
    record.dynamodb.NewImage.source = { B: bytes };
    const sqs = new FakeSqs();
    const relay = new Relay({ config, sns: new FakeSns(), sqs, topicArns, deadLetterQueueUrl, onlyAggregateTypes: ['order'] });

    const result = await relay.relay([record as never]);

    expect(result.outcomes).toMatchObject([{ status: 'delivered', published: 0, deadLettered: 1 }]);
    const letter = JSON.parse(sqs.bodies[0]!) as RelayDeadLetter;
    expect(deadLetterRawImage(letter)).toMatchObject({ source: { B: Buffer.from(bytes).toString('base64') } });
    expect(Buffer.byteLength(sqs.bodies[0]!)).toBeLessThan(MAX_DEAD_LETTER_MESSAGE_BYTES);
  });
});
