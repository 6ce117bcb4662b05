import { OutboxError } from '../errors.js';

/** Stable codes of {@link LocalStackError}. */
export type LocalStackErrorCode =
  | 'PORT_IN_USE'
  | 'INVALID_OPTION'
  | 'INVALID_SUBSCRIPTION'
  | 'LOW_LATENCY_PROCESSOR_MISSING'
  | 'TABLE_WITHOUT_STREAM'
  | 'INVALID_CHECKPOINT'
  | 'PERSIST_DIR_IN_USE'
  | 'PERSIST_DIR_UNUSABLE';

/** The local stack could not start as asked; the message says what was given and what is allowed. */
export class LocalStackError extends OutboxError {
  declare readonly code: LocalStackErrorCode;

  constructor(code: LocalStackErrorCode, message: string, options?: ErrorOptions) {
    super(code, message, options);
    this.name = 'LocalStackError';
  }
}
