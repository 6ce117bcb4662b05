import type { ConsumerLogger, ConsumerMetrics } from '../../shared/consumer/types.js';

export interface LogEntry {
  readonly level: 'info' | 'warn' | 'error';
  readonly message: string;
  readonly attributes: Record<string, unknown>;
}

/** A logger and metrics sink that keep what they were given, for assertions. */
export function recordingTelemetry(): { logger: ConsumerLogger; metrics: ConsumerMetrics; logs: LogEntry[]; counts: Map<string, number> } {
  const logs: LogEntry[] = [];
  const counts = new Map<string, number>();
  const log = (level: LogEntry['level']) => (message: string, attributes: Record<string, unknown>) => {
    logs.push({ level, message, attributes });
  };
  return {
    logs,
    counts,
    logger: { info: log('info'), warn: log('warn'), error: log('error') },
    metrics: {
      addMetric: (name, _unit, value) => {
        counts.set(name, (counts.get(name) ?? 0) + value);
      },
    },
  };
}
