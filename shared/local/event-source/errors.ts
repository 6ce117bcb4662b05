import { OutboxError } from '../../errors.js';

/**
 * Options of the local event source mapping it cannot apply as given; `field` names the option.
 * Thrown by the `StreamRunner` constructor, before anything is read.
 */
export class StreamRunnerOptionsError extends OutboxError {
  readonly field: string;

  constructor(field: string, message: string, options?: ErrorOptions) {
    super('INVALID_STREAM_RUNNER_OPTIONS', `Invalid stream runner option ${field}: ${message}`, options);
    this.name = 'StreamRunnerOptionsError';
    this.field = field;
  }
}
