import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { describe, expect, it } from 'vitest';
import { consumerMetrics } from '../../shared/consumer/consumer.js';
import { METRICS_NAMESPACE } from '../../shared/consumer/index.js';
import { captureEmf } from '../helpers/metrics.js';

const dimensionsOf = (env: NodeJS.ProcessEnv) => {
  const metrics = consumerMetrics('billing', env);
  const written = captureEmf(metrics);
  metrics.addMetric('EventsProcessed', MetricUnit.Count, 1);
  metrics.publishStoredMetrics();
  const [emf] = written;
  return { namespace: emf!._aws.CloudWatchMetrics[0]!.Namespace, dimensions: emf!._aws.CloudWatchMetrics[0]!.Dimensions, emf: emf! };
};

describe('consumer metrics', () => {
  it('carry the Lambda function’s name as a dimension, so two deployments never share them', () => {
    const { namespace, dimensions, emf } = dimensionsOf({ AWS_LAMBDA_FUNCTION_NAME: 'billing-consumer-prod' });
    expect(namespace).toBe(METRICS_NAMESPACE);
    expect(dimensions).toEqual([['service', 'functionName']]);
    expect(emf).toMatchObject({ service: 'billing', functionName: 'billing-consumer-prod', EventsProcessed: 1 });
  });

  it('have the consumer’s name alone outside Lambda', () => {
    const { dimensions, emf } = dimensionsOf({});
    expect(dimensions).toEqual([['service']]);
    expect(emf).toMatchObject({ service: 'billing' });
  });
});
