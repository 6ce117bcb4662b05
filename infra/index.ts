/**
 * `dynamodb-outbox/cdk`: the outbox as CDK constructs. `Outbox` deploys all of it from one
 * config; the parts are exported for stacks that assemble their own.
 */

export { ARCHIVER_METRICS, type ArchiverMetricName } from '../shared/archive/archiver-metrics.js';
export { OutboxError } from '../shared/errors.js';
export { type ArchiveAlarmsOptions, addArchiveAlarms } from './archive-alarms.js';
export { LowLatencyProcessor, type LowLatencyProcessorProps } from './low-latency-processor.js';
export { Outbox, type OutboxProps, type OutboxSubscriptionOptions } from './outbox.js';
export { DEFAULT_PROCESSOR_LAG_SECONDS, OutboxAlarms, type OutboxAlarmsProps } from './outbox-alarms.js';
export { OutboxArchive, type OutboxArchiveProps } from './outbox-archive.js';
export { OutboxFunction, type OutboxFunctionProps } from './outbox-function.js';
export { OutboxSubscriber } from './outbox-subscriber.js';
export { OutboxTable, type OutboxTableProps } from './outbox-table.js';
export { OutboxTopics, type OutboxTopicsProps } from './outbox-topics.js';
export { OutboxPropsError } from './private/props-error.js';
export { RelayFunction, type RelayFunctionProps, relayMetric } from './relay-function.js';
export type { OutboxSubscriberProps } from './subscriber-props.js';
