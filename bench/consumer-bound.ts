import type { PathName } from './consumer-paths.js';
import type { RequestCosts, RequestName } from './consumer-requests.js';

/*
 * The bound on one transaction per event, from what bench/consumer.ts measures side by side: the
 * requests' own times on DynamoDB Local (bench/consumer-requests.ts) and each path's client CPU
 * per message in memory (bench/consumer-cost.ts), next to the ratios the paths reached.
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
  // The bare handler's time per message with its UpdateItem swapped for what one transaction per event asks of DynamoDB
  // (a commit per event, a read per batch): everything else (the loop, the SDK, the machine's load) left as the bare handler's.
  const bareMs = 1000 / rate.bare;
  const ours = (unique / messages) * costs.inboxTransaction + (batches / messages) * costs.batchRead;
  const ceiling = bareMs / (bareMs - costs.update + ours);
  const floorMs = (unique / messages) * costs.floorTransaction + ((messages - unique) / messages) * costs.floorCancelled;
  const floorModel = bareMs / (bareMs - costs.update + floorMs);
  const achieved = rate.transaction / rate.bare;
  const target = (1.5 * rate.powertools) / rate.bare;
  const us = (path: PathName) => cpu.get(path) ?? Number.NaN;
  const ownMs = (us('transaction') - us('floor')) / 1000;
  const text =
    `**Why the default falls short: the bound on one transaction per event.** The requests each path sends, timed one at a time ` +
    `on the same DynamoDB Local in the same run (a round after every block):\n\n${table}\n\n` +
    `Per message the default asks DynamoDB for ${(unique / messages).toFixed(2)} \`TransactWriteItems\` (every event once) and ` +
    `${(batches / messages).toFixed(2)} batch reads, ${ours.toFixed(2)} ms of requests, where the bare handler asks for one \`UpdateItem\`, ` +
    `${costs.update.toFixed(2)} ms, of its ${bareMs.toFixed(2)} ms per message. The bare handler with its update swapped for those requests, ` +
    `the helper's own work counted as nothing, is the ceiling of one transaction per event: **${x(ceiling)} the bare handler's throughput**, ` +
    `${x((ceiling * rate.bare) / rate.powertools)} Powertools' in this run. The default reached ${x(achieved)} the bare handler's ` +
    `(${x(rate.transaction / rate.powertools)} Powertools')${achieved > ceiling ? ', above that ceiling: the requests are timed in rounds of their own, between the blocks, and the load moves' : ''}; 1.5× Powertools' is ${x(target)} the bare handler's` +
    (target > ceiling
      ? `, above the ceiling: no change to the helper reaches it with one transaction per event on this backend, as long as a 2-action transaction costs DynamoDB Local ${x(costs.inboxTransaction / costs.update)} an \`UpdateItem\`. `
      : achieved < target
        ? `, within the ceiling in this run. `
        : `. `) +
    `\`commit: 'batch'\` sends one transaction per batch instead, and is the way to the target. ` +
    `The client side is not what bounds it: apart from DynamoDB (an in-memory transport answering every request at once), a message costs ` +
    `${us('transaction').toFixed(0)} µs of CPU on the default path, ${us('floor').toFixed(0)} µs on the bare transaction's (the same ` +
    `\`TransactWriteItems\` by hand, no read, no checks) and ${us('bare').toFixed(0)} µs on the bare handler's, the SDK's serialisation ` +
    `and signing most of each: the helper's parsing, checks, batch read and inbox record add ${ownMs.toFixed(2)} ms per message, ` +
    `${((100 * ownMs) / bareMs).toFixed(0)}% of the bare handler's time per message. The bare transaction row pays a transaction for ` +
    `each of its ${messages - unique} redeliveries too (cancelled, where the helper's batch read skips them before any write); its ` +
    `requests timed one at a time put it at ${x(floorModel)} the bare handler's throughput, and it reached ${x(rate.floor / rate.bare)}` +
    (rate.floor / rate.bare < 0.9 * floorModel
      ? ': what it loses beyond its requests is not in what a request costs alone, and is no bound on the default.'
      : '.');
  return { table, text };
}
