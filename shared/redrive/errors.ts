import { OutboxError } from '../errors.js';

/** A redrive was asked for something impossible or unsafe; nothing was read or moved. */
export class RedriveOptionsError extends OutboxError {
  readonly field: string;

  constructor(field: string, message: string, options?: ErrorOptions) {
    super('INVALID_REDRIVE_OPTIONS', `Invalid redrive option ${field}: ${message}`, options);
    this.name = 'RedriveOptionsError';
    this.field = field;
  }
}
