import { errorMessage } from '../error-message.js';
import { OutboxError } from '../errors.js';
import { refusalHeading } from '../refusal-heading.js';
import type { ReplaySummary } from './replay-types.js';

/**
 * A replay was asked for something impossible; nothing was read or sent. `field` is the option at
 * fault (`from`, or `--from` on the command line), or what else of the command line is, headed as
 * redrive's are ({@link refusalHeading}): an unknown option (`option`: `Unknown replay
 * option: got "--frm"; allowed: …`), a word after the options (`argument`: `Unexpected replay
 * argument: …`), anything else (`line`: `Invalid replay command line: …`).
 *
 * @example
 * ```ts
 * try { await replayArchive({ ...options, from: 'yesterday' }); } catch (error) {
 *   if (error instanceof ReplayOptionsError) console.error(error.field, error.detail); // from, got "yesterday"; allowed: …
 * }
 * ```
 */
export class ReplayOptionsError extends OutboxError {
  /** The option (or command-line flag) at fault. */
  readonly field: string;
  /** What is wrong, without the option's name: what was given and what is allowed. */
  readonly detail: string;

  constructor(field: string, detail: string, options?: ErrorOptions) {
    super('INVALID_REPLAY_OPTIONS', `${refusalHeading('replay', field)}: ${detail}`, options);
    this.name = 'ReplayOptionsError';
    this.field = field;
    this.detail = detail;
  }
}

/** Why a checkpoint was not used. */
export type ReplayCheckpointErrorCode =
  /** The checkpoint is of another replay: its selection differs from the one given. */
  | 'REPLAY_CHECKPOINT_MISMATCH'
  /** The file is no checkpoint a replay wrote, or names an hour outside the replay's range. */
  | 'REPLAY_CHECKPOINT_UNREADABLE';

/**
 * The checkpoint file belongs to another replay (its selection differs: `differences` names each
 * parameter, as recorded and as given) or cannot be read; nothing was sent.
 *
 * @example
 * ```ts
 * try { await replayArchive(options); } catch (error) {
 *   if (error instanceof ReplayCheckpointError) console.error(error.differences); // ['types: none in the checkpoint, ["order.paid"] given']
 * }
 * ```
 */
export class ReplayCheckpointError extends OutboxError {
  declare readonly code: ReplayCheckpointErrorCode;
  readonly path: string;
  readonly differences: readonly string[];

  constructor(code: ReplayCheckpointErrorCode, path: string, message: string, differences: readonly string[] = [], options?: ErrorOptions) {
    super(code, message, options);
    this.name = 'ReplayCheckpointError';
    this.path = path;
    this.differences = differences;
  }
}

/**
 * A replay stopped part way because a call failed for good (the cause), or the queue failed an
 * entry for a passing reason more often than the retries allow. `summary` counts what was sent
 * before; the checkpoint holds where it stopped, so the same command goes on from there.
 *
 * @example
 * ```ts
 * try { await replayArchive(options); } catch (error) {
 *   if (error instanceof ReplayStoppedError) console.log(formatReplaySummary(error.summary));
 * }
 * ```
 */
export class ReplayStoppedError extends OutboxError {
  readonly summary: ReplaySummary;

  constructor(summary: ReplaySummary, cause: unknown) {
    super('REPLAY_STOPPED', `replay stopped after ${summary.sent} events sent: ${errorMessage(cause)}`, { cause });
    this.name = 'ReplayStoppedError';
    this.summary = summary;
  }
}
