import { ConfigError } from './errors.js';
import { showValue } from './show-value.js';

/** The range of a lag alarm's threshold, in seconds: a stream record lives 24 hours. */
export const LAG_ALARM_SECONDS_RANGE: readonly [number, number] = [1, 86_400];

/**
 * Validates `lagAlarmSeconds`: aggregate type → the commit-to-publish lag, in whole seconds, at
 * which its alarm goes off. Each key must be an aggregate type the Lambda relay publishes (a
 * route, not a low-latency type: the processor's own lag alarm watches those).
 */
export function validateLagAlarms(
  raw: unknown,
  routes: Readonly<Record<string, string>>,
  lowLatency: readonly string[],
): Record<string, number> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ConfigError('lagAlarmSeconds', `got ${showValue(raw)}; allowed: an object mapping aggregate type to seconds`);
  }
  const relayed = Object.keys(routes).filter((type) => !lowLatency.includes(type));
  const alarms: Record<string, number> = {};
  for (const [type, seconds] of Object.entries(raw)) {
    const field = `lagAlarmSeconds.${type}`;
    if (!relayed.includes(type)) {
      const why = lowLatency.includes(type)
        ? 'it is a low-latency aggregate type, whose lag the processor alarm watches (processorLagThreshold)'
        : 'it has no route';
      throw new ConfigError(
        field,
        `got aggregate type ${JSON.stringify(type)}: ${why}; allowed: ${relayed.map((t) => JSON.stringify(t)).join(', ') || 'none (every routed type is low-latency)'}`,
      );
    }
    const [min, max] = LAG_ALARM_SECONDS_RANGE;
    if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < min || seconds > max) {
      throw new ConfigError(field, `got ${showValue(seconds)}; allowed: a whole number of seconds from ${min} to ${max}`);
    }
    alarms[type] = seconds;
  }
  return alarms;
}
