/** The highest TCP port: for the processor's health endpoint and the local stack's ports. */
export const MAX_PORT = 65_535;

/**
 * What a TCP port may be, as a refusal says it after "allowed:", in one wording whose range alone
 * differs: from 0, where 0 asks the system for a free port (the local stack's ports,
 * `startHealthServer`), or from 1, where the port must be named (`OUTBOX_PROCESSOR_HEALTH_PORT`,
 * which the container's health check asks).
 *
 * @example
 * ```ts
 * portAllowed(0); // 'a whole number from 0 (a free port) to 65535'
 * portAllowed(1); // 'a whole number from 1 to 65535'
 * ```
 */
export const portAllowed = (lowest: 0 | 1): string => `a whole number from ${lowest === 0 ? '0 (a free port)' : '1'} to ${MAX_PORT}`;
