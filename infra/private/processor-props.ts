import { Token } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import type { OutboxConfig } from '../../shared/config.js';
import { ProcessorOptionsError } from '../../shared/processor/errors.js';
import { processorAggregateTypes } from '../../shared/publishing-paths.js';
import { showValue } from '../../shared/show-value.js';
import { tableKeyProblem } from './props-error.js';

/** Refuses props the processor cannot run with, naming the prop by the construct's path, before anything is built. */
export function validateProcessorProps(
  scope: Construct,
  props: {
    readonly config: OutboxConfig;
    readonly table: ITable;
    readonly topics: ReadonlyMap<string, ITopic>;
    readonly encryptionKey?: IKey | undefined;
  },
  { minTasks, maxTasks, failoverMs }: { minTasks: number; maxTasks: number; failoverMs: number },
): void {
  const at = (prop: string) => `${scope.node.path}.${prop}`;
  if (processorAggregateTypes(props.config).length === 0) {
    throw new ProcessorOptionsError(
      at('config.lowLatencyAggregateTypes'),
      'got []; allowed: at least one routed aggregate type, here or in config.handoverAggregateTypes (otherwise leave the processor out)',
    );
  }
  const keyProblem = props.encryptionKey && tableKeyProblem(scope);
  if (keyProblem) throw new ProcessorOptionsError(at('encryptionKey'), keyProblem);
  if (props.table.tableStreamArn === undefined) {
    throw new ProcessorOptionsError(at('table'), 'has no stream; allowed: the outbox table, whose stream is NEW_IMAGE');
  }
  for (const topic of props.config.topics) {
    if (!props.topics.has(topic.name)) {
      throw new ProcessorOptionsError(at('topics'), `has no topic "${topic.name}"; allowed: a map holding every topic of the config`);
    }
  }
  const whole = (value: number, min: number, max: number, prop: string) => {
    if (!Token.isUnresolved(value) && (!Number.isInteger(value) || value < min || value > max)) {
      throw new ProcessorOptionsError(at(prop), `got ${showValue(value)}; allowed: a whole number from ${min} to ${max}`);
    }
  };
  whole(minTasks, 1, 100, 'minTasks');
  whole(maxTasks, minTasks, 100, 'maxTasks');
  whole(failoverMs, 1000, 600_000, 'failover');
}
