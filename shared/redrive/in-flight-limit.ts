/**
 * SQS's in-flight limits: past these a standard queue refuses a receive (`OverLimit`, to a short
 * poll) or answers it empty (a long poll), and a FIFO queue answers it empty. AWS's SQS quotas give
 * 120,000 for either kind (a FIFO queue's was once 20,000).
 */
export const IN_FLIGHT_LIMIT = { standard: 120_000, fifo: 120_000 } as const;
