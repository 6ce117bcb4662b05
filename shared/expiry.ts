/** The value of the table's TTL attribute (`expiresAt`), shared by every item the write helper writes. */

/** Epoch seconds `seconds` after `now`, as DynamoDB TTL reads them. */
export function expiry(now: Date, seconds: number): number {
  return Math.floor(now.getTime() / 1000) + seconds;
}
