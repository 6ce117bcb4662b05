import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import { createProcessorRelay } from '../shared/processor/processor.js';
import { StreamSource } from '../shared/processor/stream-source.js';
import { Worker } from '../shared/processor/worker.js';
import { createRelayHandler, Relay } from '../shared/relay/index.js';
import { MemoryLeaseStore } from '../test/helpers/memory-lease-store.js';
import { SimulatedStream } from '../test/helpers/simulated-stream.js';
import {
  CountingSns,
  deadLetterQueueUrl,
  lambdaBatches,
  processorConfig,
  relayConfig,
  streamRecords,
  topicArns,
  until,
  unusedDlq,
} from './scale-fixtures.js';

/*
 * CPU per event of the relay handler and of the stream processor draining a backlog: process
 * CPU time (user + system, `process.cpuUsage()`), not wall time, of this process alone, with an
 * SNS that does no work (so no emulator's CPU is counted) and the records made in memory
 * beforehand (so no DynamoDB Local either).
 */

const AGGREGATES = 1_000;
/** The event source mapping's default batch size. */
const BATCH_SIZE = 100;
const cpuNow = (): number => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

/**
 * The relay handler's CPU per event (µs) over a backlog of `events` events, `perRecord` per
 * stream record, handed to it in full batches as the event source mapping hands a backlog. Only
 * the handler's invocations are timed: making each batch's records is not.
 */
export async function relayCpuPerEvent(events: number, perRecord: number): Promise<number> {
  const sns = new CountingSns();
  const handler = createRelayHandler({
    relay: new Relay({ config: relayConfig, sns, sqs: unusedDlq, topicArns, deadLetterQueueUrl }),
    logger: new Logger({ serviceName: 'bench', logLevel: 'SILENT' }),
    metrics: { addMetric: () => undefined },
  });
  let used = 0;
  let invocation = 0;
  for (const Records of lambdaBatches(events, perRecord, AGGREGATES, BATCH_SIZE)) {
    const context = { awsRequestId: `r-${invocation++}`, getRemainingTimeInMillis: () => 60_000 } as unknown as Context;
    const start = cpuNow();
    const { batchItemFailures } = await handler({ Records }, context);
    used += cpuNow() - start;
    if (batchItemFailures.length > 0) throw new Error('the benchmark relay reported a failed record');
  }
  if (sns.published !== events) throw new Error(`the relay published ${sns.published} of ${events} events`);
  return used / events;
}

/**
 * The stream processor's CPU per event (µs): one worker, already running and holding the one
 * shard of a simulated stream, is handed the whole backlog at once; the time runs from then to
 * the last event published, so its start-up is not in it.
 */
export async function processorCpuPerEvent(events: number, perRecord: number): Promise<number> {
  const stream = new SimulatedStream({ initialShards: 1 });
  const sns = new CountingSns();
  const worker = new Worker({
    source: new StreamSource(stream, stream.streamArn),
    leases: new MemoryLeaseStore(),
    publisher: createProcessorRelay({ config: processorConfig, sns, sqs: unusedDlq, topicArns, deadLetterQueueUrl }),
    workerId: 'bench-worker',
  });
  const backlog = streamRecords(events, perRecord, AGGREGATES);
  try {
    await worker.start();
    await until(() => worker.status().leases.length === 1, 10_000, 'the worker to take the shard');
    const start = cpuNow();
    const shard = stream.shards[0]?.records as unknown[];
    for (const record of backlog) shard.push(record);
    await until(() => sns.published >= events, 600_000, `the processor to publish ${events} events`, 2);
    return (cpuNow() - start) / events;
  } finally {
    await worker.halt();
  }
}
