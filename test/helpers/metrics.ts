import type { Metrics } from '@aws-lambda-powertools/metrics';

/** What `metrics` would write to stdout as EMF on each flush, kept in the returned list instead. */
export function captureEmf(metrics: Metrics): ReturnType<Metrics['serializeMetrics']>[] {
  const written: ReturnType<Metrics['serializeMetrics']>[] = [];
  metrics.publishStoredMetrics = () => {
    written.push(metrics.serializeMetrics());
    // As Powertools' own flush does: a dimension added for one line never carries over to the next.
    metrics.clearMetrics();
    metrics.clearDimensions();
    return metrics;
  };
  return written;
}
