import { type Alarm, AlarmStatusWidget } from 'aws-cdk-lib/aws-cloudwatch';

/** CloudWatch's limit on the alarms of one alarm-status widget; a dashboard with more is refused. */
export const MAX_ALARMS_PER_WIDGET = 100;

const statusWidget = (alarms: Alarm[], index: number): AlarmStatusWidget =>
  new AlarmStatusWidget({ title: index === 0 ? 'Outbox alarms' : `Outbox alarms (continued, ${index + 1})`, alarms, width: 24 });

/**
 * A dashboard's alarms, in alarm-status widgets of at most {@link MAX_ALARMS_PER_WIDGET} each. A
 * widget shows its alarms as they are when the stack is synthesized, so alarms added after the
 * dashboard was built still show in the last widget while it has room.
 *
 * @example
 * ```ts
 * const status = new AlarmStatusWidgets();
 * const dashboard = new Dashboard(this, 'Dashboard', { widgets: status.widgets().map((widget) => [widget]) });
 * const opened = status.add(alarm);
 * if (opened) dashboard.addWidgets(opened);
 * ```
 */
export class AlarmStatusWidgets {
  private readonly chunks: Alarm[][] = [[]];

  /** Every alarm added so far. */
  get alarms(): readonly Alarm[] {
    return this.chunks.flat();
  }

  /** A widget for each chunk of alarms so far, one row each. */
  widgets(): AlarmStatusWidget[] {
    return this.chunks.map(statusWidget);
  }

  /** Adds an alarm; when the last widget was full, returns the widget of the new chunk, for a dashboard already built. */
  add(alarm: Alarm): AlarmStatusWidget | undefined {
    let chunk = this.chunks.at(-1) as Alarm[];
    let opened: AlarmStatusWidget | undefined;
    if (chunk.length === MAX_ALARMS_PER_WIDGET) {
      chunk = [];
      this.chunks.push(chunk);
      opened = statusWidget(chunk, this.chunks.length - 1);
    }
    chunk.push(alarm);
    return opened;
  }
}
