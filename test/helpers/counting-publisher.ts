import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import type { RecordPublisher } from '../../shared/processor/consumer-context.js';
import type { RelayResult } from '../../shared/relay/index.js';
import { coordinatesOf } from '../../shared/relay/stream-record.js';
import { Gate } from './gate.js';

/** The sequence number a publication is counted under. */
export const sequenceOf = (record: _Record): string => record.dynamodb!.SequenceNumber!;

const delivered = (records: readonly _Record[]): RelayResult => ({
  outcomes: records.map((record) => ({ status: 'delivered', record: coordinatesOf(record), published: 1, deadLettered: 0 })),
  published: records.length,
  retried: 0,
  deadLettered: 0,
  ignored: 0,
  failed: 0,
});

/** Every publisher of the test, so a test that fails while one is held does not leave its worker waiting. */
const publishers: CountingPublisher[] = [];

/** Publishes everything, counting each record's publications; after `hold()`, publishes wait for `open()`. */
export class CountingPublisher implements RecordPublisher {
  readonly published = new Map<string, number>();
  inFlight = 0;
  maxInFlight = 0;
  private readonly gate = new Gate();

  constructor() {
    publishers.push(this);
  }

  hold(): void {
    this.gate.close();
  }

  open(): void {
    this.gate.open();
  }

  async relay(records: readonly _Record[]): Promise<RelayResult> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await this.gate.passed();
      for (const record of records) this.published.set(sequenceOf(record), (this.published.get(sequenceOf(record)) ?? 0) + 1);
      return delivered(records);
    } finally {
      this.inFlight--;
    }
  }
}

/** Opens every publisher held, for an `afterEach`. */
export function openPublishers(): void {
  for (const publisher of publishers.splice(0)) publisher.open();
}
