import { Logger } from '@aws-lambda-powertools/logger';
import { snsClient, sqsClient } from '../../shared/aws/messaging-clients.js';
import { s3Client } from '../../shared/aws/s3-client.js';
import { streamsClient } from '../../shared/aws/streams-client.js';
import {
  createProcessor,
  PROCESSOR_METRICS,
  processorEnvironment,
  processorMetrics,
  processorObserver,
  processorSettings,
  startHealthServer,
} from '../../shared/processor/index.js';
import { leaseTableClient } from '../../shared/processor/lease-table-client.js';

const logger = new Logger({ serviceName: PROCESSOR_METRICS.service });

/** The worker and its health endpoint, from the environment read and validated once. */
async function setUp() {
  const env = processorEnvironment();
  logger.appendPersistentKeys({ workerId: env.workerId });
  const observer = processorObserver(logger, processorMetrics(env.leaseTableName));
  // Lease writes time out well within a renewal interval: a hung write must not hold the others back.
  const { renewIntervalMs } = processorSettings(env.settings);
  const worker = createProcessor({
    config: env.config,
    topicArns: env.topicArns,
    deadLetterQueueUrl: env.deadLetterQueueUrl,
    streamArn: env.streamArn,
    leaseTableName: env.leaseTableName,
    workerId: env.workerId,
    settings: env.settings,
    streams: streamsClient(),
    document: leaseTableClient(renewIntervalMs),
    sns: snsClient(),
    sqs: sqsClient(),
    observer,
    onFailure: { s3: s3Client(), bucket: env.failedBatchBucket },
  });
  // Up before the start, which retries throttled calls for as long as they last: ECS would
  // otherwise count a start longer than its grace period as unhealthy and replace the task.
  const health = await startHealthServer(() => worker.status(), worker.settings.failoverMs, env.healthPort);
  return { observer, worker, health };
}

let parts: Awaited<ReturnType<typeof setUp>>;
try {
  parts = await setUp();
} catch (error) {
  // A bad deployment (a variable missing or malformed, the health port taken) fails here, named.
  logger.error('start-up failed', { error });
  process.exit(1);
}
const { observer, worker, health } = parts;

// ECS sends SIGTERM and waits stopTimeout before SIGKILL: finish the batch, checkpoint, release,
// then write out the metrics gathered since the last periodic flush. Listened to before the start,
// which may take a while (it retries throttled calls) and may already hold leases: a stop ends it
// and hands them over.
const shutdown = async (signal: string): Promise<void> => {
  logger.info('stopping: handing leases over', { signal });
  await worker.stop();
  observer.flush();
  await health.close();
  logger.info('stopped', { signal });
  process.exit(0);
};
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));

try {
  await worker.start();
} catch (error) {
  // Not retried (a wrong stream ARN, a missing permission): ECS restarts the task with back-off.
  logger.error('start-up failed', { error });
  observer.flush();
  process.exit(1);
}
// Stopped while starting: the shutdown exits once the hand-off is done.
if (worker.status().state === 'running') {
  logger.info('processor started', { healthPort: health.port, leases: worker.status().leases });
}
