import { OutboxError } from '../errors.js';

/**
 * A lease write failed its condition: another worker took the lease, or this worker's copy of
 * the counter is stale. The worker stops processing the shard; nothing was written.
 */
export class LeaseLostError extends OutboxError {
  readonly leaseKey: string;

  constructor(leaseKey: string, operation: string, expected: { owner?: string; counter: number }, options?: ErrorOptions) {
    super(
      'LEASE_LOST',
      `Lease ${leaseKey}: ${operation} failed because the lease changed (expected counter ${expected.counter}` +
        `${expected.owner === undefined ? '' : ` and owner "${expected.owner}"`}); another worker holds or took it.`,
      options,
    );
    this.name = 'LeaseLostError';
    this.leaseKey = leaseKey;
  }
}

/** Options of the stream processor out of range; `field` names the option. */
export class ProcessorOptionsError extends OutboxError {
  readonly field: string;

  constructor(field: string, message: string, options?: ErrorOptions) {
    super('INVALID_PROCESSOR_OPTIONS', `Invalid stream processor option ${field}: ${message}`, options);
    this.name = 'ProcessorOptionsError';
    this.field = field;
  }
}
