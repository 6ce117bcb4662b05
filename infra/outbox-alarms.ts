import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  type Metric,
  Stats,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { OutboxConfig } from '../shared/config.js';
import { RELAY_METRICS } from '../shared/relay/metrics.js';
import { createAlarmTopic } from './alarm-topic.js';
import type { LowLatencyProcessor } from './low-latency-processor.js';
import {
  type AlarmSpec,
  checkProcessorLagThreshold,
  processorAlarmSpecs,
  relayAlarmSpecs,
  relayLagAlarmSpecs,
} from './outbox-alarm-specs.js';
import { processorLagCharts, relayLagCharts } from './outbox-lag-charts.js';
import { AlarmStatusWidgets } from './private/alarm-status-widgets.js';
import { propsConfig } from './private/config-check.js';
import { alphanumeric, distinctIds } from './private/construct-ids.js';
import { relayMetric } from './private/emf-metrics.js';
import { checkEmail, checkMillisToken, checkSeconds } from './private/props-error.js';
import { SQS_MAX_RETENTION_SECONDS } from './private/retention.js';

/** Processor lag that raises its alarm by default: well above a lease takeover (10 s), far below the Lambda path's scale. */
export const DEFAULT_PROCESSOR_LAG_SECONDS = 30;

/** Props of {@link OutboxAlarms}. */
export interface OutboxAlarmsProps {
  /** The Lambda relay whose iterator age, errors and throttles are watched. */
  readonly relayFunction: IFunction;
  /**
   * The relay's event source mapping (its UUID, `RelayFunction.eventSource.eventSourceMappingId`):
   * any record it sends to its on-failure destination raises an alarm. The mapping must report
   * its `EventCount` metrics, as `RelayFunction`'s does.
   */
  readonly relayEventSourceMappingId: string;
  /** Topics whose failed deliveries (`NumberOfNotificationsFailed`) raise an alarm. @default none */
  readonly topics?: readonly ITopic[];
  /** Topic that receives alarm and OK notifications. @default a new topic encrypted with a new KMS key CloudWatch may use */
  readonly alarmTopic?: ITopic;
  /** Address subscribed to the alarm topic (the recipient must confirm). @default no subscription */
  readonly alarmEmail?: string;
  /** Relay iterator age (the age of a batch's last record) that raises the iterator-age alarm (60 s–24 h). @default Duration.minutes(1) */
  readonly iteratorAgeThreshold?: Duration;
  /** What happens to the alarm topic's key when it leaves the stack. @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /** CloudWatch dashboard name. @default a name CloudFormation generates */
  readonly dashboardName?: string;
  /**
   * The outbox config: the dashboard charts the relay's `lagByAggregateType` of each aggregate
   * type the relay publishes (its routes less the low-latency ones), and each entry of
   * `config.lagAlarmSeconds` gets an alarm `RelayLag<aggregate type>`.
   * @default no per-type lag chart or alarm
   */
  readonly config?: OutboxConfig;
}

/**
 * Alarms and a dashboard for the outbox: the relay falling behind (iterator age), failing
 * (errors), being throttled or giving records up to its on-failure destination, any message in
 * any dead-letter queue, SNS failing to deliver, a queue's messages waiting too long (through
 * {@link OutboxAlarms.addQueueAge}), and (through {@link OutboxAlarms.addProcessor}) the
 * low-latency processor lagging or not running.
 * Every alarm notifies `alarmTopic` on ALARM and OK.
 *
 * @example
 * ```ts
 * const alarms = new OutboxAlarms(this, 'Alarms', {
 *   relayFunction: relay.function,
 *   relayEventSourceMappingId: relay.eventSource.eventSourceMappingId,
 *   topics,
 *   alarmEmail: 'oncall@example.com',
 * });
 * alarms.addDeadLetterQueue('BillingDlq', billing.deadLetterQueue);
 * ```
 */
export class OutboxAlarms extends Construct {
  readonly alarmTopic: ITopic;
  readonly dashboard: Dashboard;
  /** Every alarm, in the alarm-status widgets that show them: CloudWatch takes at most 100 in one. */
  private readonly status = new AlarmStatusWidgets();
  private readonly action: SnsAction;
  private readonly config: OutboxConfig | undefined;
  private readonly dlqWidget: GraphWidget;
  private readonly queueAgeWidget = new GraphWidget({ title: 'Oldest message age in subscriber queues (s)', left: [], width: 12 });

  constructor(scope: Construct, id: string, props: OutboxAlarmsProps) {
    super(scope, id);
    if (props.config !== undefined) props = { ...props, config: propsConfig(this.node.path, props.config) };
    const path = this.node.path;
    checkSeconds(path, 'iteratorAgeThreshold', props.iteratorAgeThreshold, 60, 86_400);
    checkMillisToken(path, 'iteratorAgeThreshold', props.iteratorAgeThreshold);
    checkEmail(path, 'alarmEmail', props.alarmEmail);
    this.alarmTopic = props.alarmTopic ?? createAlarmTopic(this, props.removalPolicy ?? RemovalPolicy.RETAIN);
    this.action = new SnsAction(this.alarmTopic);
    this.config = props.config;
    if (props.alarmEmail !== undefined) {
      const subscription = this.alarmTopic.addSubscription(new EmailSubscription(props.alarmEmail));
      Validations.of(subscription).acknowledge({
        id: 'Serverless-SNSRedrivePolicy',
        reason:
          'E-mail alarm notifications have no consumer to redrive to; an undeliverable alarm mail also shows as the alarm state in the console.',
      });
    }

    const fn = props.relayFunction;
    const relay = relayAlarmSpecs(fn, props.relayEventSourceMappingId, props.iteratorAgeThreshold ?? Duration.minutes(1));
    for (const spec of relay.specs) this.raise(spec);
    const { iteratorAge, errors, throttles } = relay.metrics;

    const failures: IMetric[] = [];
    const topics = props.topics ?? [];
    // Topic ids that differ only in punctuation (orders.fifo, orders_fifo) would share an alarm id.
    const alarmIds = distinctIds(
      topics.map((topic) => topic.node.id),
      (id) => `DeliveryFailures${alphanumeric(id)}`,
    );
    for (const [i, topic] of topics.entries()) {
      const failed = topic.metricNumberOfNotificationsFailed({ period: Duration.minutes(5), statistic: Stats.SUM });
      failures.push(failed);
      this.addAlarm(
        alarmIds[i]!,
        failed,
        1,
        1,
        `SNS failed to deliver messages from ${topic.node.path}; undeliverable messages go to the subscription DLQ.`,
      );
    }

    this.dlqWidget = new GraphWidget({ title: 'Messages in dead-letter queues', left: [], width: 12 });
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      widgets: [
        ...this.status.widgets().map((widget) => [widget]),
        [
          new GraphWidget({ title: 'Relay iterator age (ms)', left: [iteratorAge], width: 12 }),
          new GraphWidget({ title: 'Relay invocations, errors, throttles', left: [fn.metricInvocations(), errors, throttles], width: 12 }),
        ],
        [
          new GraphWidget({
            title: 'Relay events per minute',
            left: [RELAY_METRICS.published, RELAY_METRICS.retried, RELAY_METRICS.deadLettered, RELAY_METRICS.failedRecords].map((name) =>
              relayMetric(fn.functionName, name),
            ),
            width: 12,
          }),
          new GraphWidget({
            title: 'Relay lag, commit to published (ms)',
            left: [relayMetric(fn.functionName, RELAY_METRICS.lag)],
            width: 12,
          }),
        ],
        [this.dlqWidget, new GraphWidget({ title: 'SNS delivery failures', left: failures, width: 12 })],
        [this.queueAgeWidget],
      ],
    });
    if (props.config !== undefined) this.addRelayLagByAggregateType(fn.functionName, props.config);
  }

  /** The relay's lag charts per aggregate type and event type, and an alarm per configured threshold. */
  private addRelayLagByAggregateType(functionName: string, config: OutboxConfig): void {
    for (const spec of relayLagAlarmSpecs(functionName, config)) this.raise(spec);
    for (const chart of relayLagCharts(functionName, config)) this.dashboard.addWidgets(chart);
  }

  /** Every alarm created so far. */
  get alarms(): readonly Alarm[] {
    return this.status.alarms;
  }

  /**
   * Raises an alarm as soon as any message is visible in `queue`, and charts its depth.
   *
   * @example
   * ```ts
   * alarms.addDeadLetterQueue('RelayDlq', relay.deadLetterQueue);
   * ```
   */
  addDeadLetterQueue(id: string, queue: IQueue): Alarm {
    const visible = queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: Stats.MAXIMUM });
    // A label would turn the alarm into a metric-math alarm, so only the chart gets one.
    this.dlqWidget.addLeftMetric(visible.with({ label: id }));
    return this.addAlarm(
      `${id}Messages`,
      visible,
      1,
      1,
      `Messages are waiting in the dead-letter queue ${queue.node.path}: inspect them, fix the cause, then redrive.`,
    );
  }

  /**
   * Raises an alarm when the oldest message of `queue` has waited `threshold` or longer, three
   * minutes in a row (nobody receives, or the consumer cannot keep up), and charts that age. SQS
   * deletes a message once it outlives the queue's retention period, unread and without a DLQ, so
   * give a threshold well below it.
   *
   * @example
   * ```ts
   * alarms.addQueueAge('BillingQueue', billing.queue, Duration.hours(1));
   * ```
   */
  addQueueAge(id: string, queue: IQueue, threshold: Duration): Alarm {
    checkSeconds(`${this.node.path}/${id}Age`, 'threshold', threshold, 60, SQS_MAX_RETENTION_SECONDS);
    const age = queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(1), statistic: Stats.MAXIMUM });
    this.queueAgeWidget.addLeftMetric(age.with({ label: id }));
    return this.addAlarm(
      `${id}Age`,
      age,
      threshold.toSeconds(),
      3,
      `Messages have waited ${threshold.toHumanString()} or more in ${queue.node.path}: check that its consumer runs and keeps up; messages past the queue's retention period are deleted unread.`,
    );
  }

  /**
   * Watches the low-latency processor: its lag staying at or above `lagThreshold` for three
   * minutes, no task running for three minutes (then the low-latency aggregate types are not
   * published at all: the relay's filter leaves them to the processor), any record it gave up on
   * and wrote to the failed-batch bucket, and any failed write there (its shard then waits). All go
   * on the dashboard.
   *
   * @example
   * ```ts
   * alarms.addProcessor(processor, { lagThreshold: Duration.seconds(10) });
   * ```
   */
  addProcessor(processor: LowLatencyProcessor, options: { lagThreshold?: Duration } = {}): Alarm[] {
    checkProcessorLagThreshold(this.node.path, 'lagThreshold', options.lagThreshold);
    const threshold = options.lagThreshold ?? Duration.seconds(DEFAULT_PROCESSOR_LAG_SECONDS);
    const specs = processorAlarmSpecs(processor, threshold);
    const alarms = specs.map((spec) => this.raise(spec));
    const [lag, running, givenUp, writeFailures] = specs.map((spec) => spec.metric) as [Metric, IMetric, IMetric, IMetric];
    this.dashboard.addWidgets(
      new GraphWidget({ title: 'Processor lag (ms)', left: [lag], width: 12 }),
      new GraphWidget({ title: 'Processor running tasks', left: [running], width: 12 }),
      new GraphWidget({ title: 'Processor records given up on, failed writes of them', left: [givenUp, writeFailures], width: 12 }),
    );
    for (const chart of processorLagCharts(processor.leaseTable.tableName, this.config)) this.dashboard.addWidgets(chart);
    return alarms;
  }

  private raise(spec: AlarmSpec): Alarm {
    return this.addAlarm(spec.id, spec.metric, spec.threshold, spec.periods, spec.description, spec.options);
  }

  /**
   * Raises an alarm when `metric` reaches `threshold` (or, with `comparisonOperator`, compares so)
   * in `periods` periods in a row, notifying the alarm topic on ALARM and OK and showing it in the
   * dashboard's alarm status, like the outbox's own alarms. Missing data does not breach unless
   * `treatMissingData` says so.
   *
   * @example
   * ```ts
   * alarms.addAlarm('BillingErrors', billing.metricErrors({ period: Duration.minutes(5) }), 1, 1, 'The billing consumer failed.');
   * ```
   */
  addAlarm(
    id: string,
    metric: IMetric,
    threshold: number,
    periods: number,
    description: string,
    options: { comparisonOperator?: ComparisonOperator; treatMissingData?: TreatMissingData } = {},
  ): Alarm {
    const alarm = new Alarm(this, id, {
      metric,
      threshold,
      evaluationPeriods: periods,
      datapointsToAlarm: periods,
      comparisonOperator: options.comparisonOperator ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: options.treatMissingData ?? TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    const opened = this.status.add(alarm);
    // Alarms added after the dashboard was built (subscribers): a widget of their own, below.
    if (opened !== undefined && this.dashboard !== undefined) this.dashboard.addWidgets(opened);
    return alarm;
  }
}
