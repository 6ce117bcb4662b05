/**
 * The AWS Region an SQS queue URL names by its host. The SDK's SQS client sends each call to the
 * host of the call's queue URL but signs it for the client's own Region, so a client of another
 * Region fails at its first call, with a signature error; the Region in the URL is the one to sign for.
 */

/** An AWS Region's name, as hosts spell it: `eu-west-1`, `us-gov-west-1`, `cn-north-1`. */
const REGION = '[a-z]{2,}(?:-[a-z]+)+-\\d+';

/**
 * The hosts of SQS in a Region, the group being the Region: `sqs.<region>.amazonaws.com` (and
 * `.amazonaws.com.cn` in China), FIPS `sqs-fips.<region>.amazonaws.com`, dual-stack
 * `sqs[-fips].<region>.api.aws`, an interface VPC endpoint's `<id>.sqs.<region>.vpce.amazonaws.com`,
 * and the legacy `<region>.queue.amazonaws.com`.
 */
const REGIONAL_HOSTS: readonly RegExp[] = [
  new RegExp(`^sqs(?:-fips)?\\.(${REGION})\\.amazonaws\\.com(?:\\.cn)?$`),
  new RegExp(`^sqs(?:-fips)?\\.(${REGION})\\.api\\.aws$`),
  new RegExp(`^[a-z0-9-]+\\.sqs\\.(${REGION})\\.vpce\\.amazonaws\\.com(?:\\.cn)?$`),
  new RegExp(`^(${REGION})\\.queue\\.amazonaws\\.com(?:\\.cn)?$`),
];

/** The legacy host without a Region, which is US East (N. Virginia)'s. */
const LEGACY_US_EAST_1 = 'queue.amazonaws.com';

/**
 * The Region named by the host of an SQS queue URL on AWS, or `undefined` for any other URL (a
 * local endpoint's, `http://localhost:4566/000000000000/q`, or one that is no URL).
 *
 * @example
 * ```ts
 * sqsQueueUrlRegion('https://sqs.eu-west-1.amazonaws.com/123456789012/orders'); // 'eu-west-1'
 * sqsQueueUrlRegion('https://sqs-fips.us-gov-west-1.amazonaws.com/123456789012/orders'); // 'us-gov-west-1'
 * sqsQueueUrlRegion('http://localhost:4566/000000000000/orders'); // undefined
 * ```
 */
export function sqsQueueUrlRegion(url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
  if (host === LEGACY_US_EAST_1) return 'us-east-1';
  for (const form of REGIONAL_HOSTS) {
    const region = form.exec(host)?.[1];
    if (region !== undefined) return region;
  }
  return undefined;
}
