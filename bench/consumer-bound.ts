import type { PathName } from './consumer-paths.js';
import type { RequestCosts, RequestName } from './consumer-requests.js';

/*
 * The bound on one transaction per event, from what bench/consumer.ts measures side by side: the
 * bare handler's throughput, the requests' own times on DynamoDB Local (bench/consumer-requests.ts)
 * and each path's client CPU per message in memory (bench/consumer-cost.ts), next to the ratios reached.
 */

export interface BoundInput {
  readonly costs: RequestCosts;
  /** CPU µs per message by path, apart from DynamoDB. */
  readonly cpu: ReadonlyMap<PathName, number>;
  /** Messages/s the paths reached. */
  readonly rate: Readonly<Record<'powertools' | 'transaction' | 'bare' | 'floor', number>>;
  readonly messages: number;
  readonly unique: number;
  readonly batches: number;
  readonly keysPerRead: number;
}

const LABEL: Record<RequestName, string> = {
  update: 'the bare handler’s `UpdateItem`',
  inboxTransaction: 'the inbox’s `TransactWriteItems` (the update + the conditional Put of the inbox record, as the helper sends it)',
  floorTransaction: 'the bare transaction row’s `TransactWriteItems` (the update + a Put on `attribute_not_exists(pk)`), committed',
  floorCancelled: 'the same, cancelled: a redelivery just after its first delivery',
  batchRead: 'the helper’s batch read: `TransactGetItems` of a batch’s inbox keys',
};

/** The requests' table and the text that reads the bound from it. */
export function boundSection(input: BoundInput): { table: string; text: string } {
  const { costs, cpu, rate, messages, unique, batches, keysPerRead } = input;
  const x = (value: number) => `${value.toFixed(2)}×`;
  const table = [
    '| request (one at a time, timed at the client) | ms per request | vs `UpdateItem` |',
    '| --- | ---: | ---: |',
    ...(Object.keys(LABEL) as RequestName[]).map(
      (name) =>
        `| ${LABEL[name]}${name === 'batchRead' ? ` (${keysPerRead} keys)` : ''} | ${costs[name].toFixed(2)} | ${x(costs[name] / costs.update)} |`,
    ),
  ].join('\n');
  const bareMs = 1000 / rate.bare;
  const txMs = 1000 / rate.transaction;
  const us = (path: PathName) => cpu.get(path) ?? Number.NaN;
  // The helper's own client work: the default's CPU per message beyond the same transaction sent by hand.
  const ownMs = (us('transaction') - us('floor')) / 1000;
  // The default with all of that work gone, everything else as measured.
  const withoutOwn = (txMs / (txMs - ownMs)) * (rate.transaction / rate.powertools);
  const floorMs = (unique / messages) * costs.floorTransaction + ((messages - unique) / messages) * costs.floorCancelled;
  const floorModel = bareMs / (bareMs - costs.update + floorMs);
  const text =
    `**Why the default falls short: the bound on one transaction per event.** The bare handler, the same write with no dedup ` +
    `at all, reached ${x(rate.bare / rate.powertools)} Powertools' throughput in this run: 1.5× Powertools' asks the default to ` +
    `${rate.bare < 1.5 * rate.powertools ? 'outrun' : `reach ${x((1.5 * rate.powertools) / rate.bare)} the throughput of`} a handler that sends one \`UpdateItem\` per message where the default sends ` +
    `a \`TransactWriteItems\` per event and a read per batch (${(batches / messages).toFixed(2)} per message). What these requests cost DynamoDB Local, each timed one at a time on ` +
    `the same DynamoDB Local in the same run (a round after every block):\n\n${table}\n\n` +
    `A 2-action transaction costs ${x(costs.inboxTransaction / costs.update)} an \`UpdateItem\` here. The client side is not what ` +
    `holds the default back: apart from DynamoDB (an in-memory transport answering every request at once), a message costs ` +
    `${us('transaction').toFixed(0)} µs of CPU on the default path, ${us('floor').toFixed(0)} µs on the bare transaction's (the same ` +
    `\`TransactWriteItems\` by hand, no read, no checks) and ${us('bare').toFixed(0)} µs on the bare handler's, the SDK's serialisation ` +
    `and signing most of each; the helper's parsing, checks, batch read and inbox record add ${ownMs.toFixed(2)} ms to the default's ` +
    `${txMs.toFixed(2)} ms per message. With all of it gone the default would reach at most ${x(withoutOwn)} Powertools'` +
    `${withoutOwn < 1.5 ? ': no change to the helper reaches 1.5× with one transaction per event on this backend' : ''}. ` +
    `\`commit: 'batch'\` sends one transaction per batch instead, and is the way to the target. The bare transaction row pays a ` +
    `transaction for each of its ${messages - unique} redeliveries too (cancelled, where the helper's batch read skips them before ` +
    `any write); its requests timed one at a time put it at ${x(floorModel)} the bare handler's throughput, and it reached ` +
    `${x(rate.floor / rate.bare)}` +
    (rate.floor / rate.bare < 0.9 * floorModel
      ? ': what it loses beyond its requests is not in what a request costs alone, and is no bound on the default.'
      : '.');
  return { table, text };
}
