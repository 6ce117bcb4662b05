import { rateLimiter as limiterAt, type RateLimiter, rateProblem } from '../rate-limit.js';
import { RedriveOptionsError } from './errors.js';

/** Why a redrive's rate has a floor, in its refusals (the functions' `ratePerSecond`, the command line's `--rate`). */
export const RATE_FLOOR_REASON = 'slower, one batch would hold its messages for hours';

/**
 * The redrive's limiter at its `ratePerSecond` option ({@link limiterAt}), or a
 * {@link RedriveOptionsError} for a rate too slow, before anything is read or moved.
 */
export function rateLimiter(perSecond: number | undefined): Pick<RateLimiter, 'take'> {
  const problem = perSecond === undefined ? undefined : rateProblem(perSecond, RATE_FLOOR_REASON);
  if (problem !== undefined) throw new RedriveOptionsError('ratePerSecond', problem);
  return limiterAt(perSecond);
}
