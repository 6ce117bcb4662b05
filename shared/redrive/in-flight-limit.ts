/**
 * SQS's in-flight limits: past these a standard queue refuses a receive (`OverLimit`, to a short
 * poll) or answers it empty (a long poll), and a FIFO queue answers it empty.
 */
export const IN_FLIGHT_LIMIT = { standard: 120_000, fifo: 20_000 } as const;
