import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { errorMessage } from '../error-message.js';
import { archiveHourOf } from './layout.js';
import type { ArchivedEvent } from './reader-decode.js';
import { ReplayCheckpointError, ReplayOptionsError } from './replay-errors.js';
import type { ReplayParameters } from './replay-options.js';
import { aggregateKeyOf, type Position } from './replay-order.js';

/** An aggregate's position, as a checkpoint records it: type, id, epoch, sequence. */
export type RecordedPosition = readonly [aggregateType: string, aggregateId: string, epoch: string, sequence: number];

/** An aggregate whose event the queue refused for good, as a checkpoint records it: type, id, that event's id. */
export type RecordedRefusal = readonly [aggregateType: string, aggregateId: string, eventId: string];

/**
 * Where a replay stands, as of the last hour it finished. The file holds this as its first line;
 * after it, one line per batch the queue acknowledged in the hour under way (`nextHour`), so a
 * stop mid-hour loses nothing that was sent.
 */
export interface CheckpointState {
  readonly version: 1;
  readonly replayId: string;
  readonly parameters: ReplayParameters;
  /** The range's end (exclusive) as the first run fixed it. */
  readonly to: string;
  /** The hour to send next; `null` once the replay completed. */
  readonly nextHour: string | null;
  /** Per aggregate, the first event held back for `nextHour` (sent with it, in order), and the hours those sit in. */
  readonly carry: readonly RecordedPosition[];
  readonly carryHours: readonly string[];
  /**
   * The aggregates whose event the queue refused in the hours done, so a resumed run holds their
   * later events back too; absent in a checkpoint written by an earlier release.
   */
  readonly refused?: readonly RecordedRefusal[];
  readonly updatedAt: string;
}

/** An archived event's position, as a checkpoint records it. */
export const positionOf = (event: ArchivedEvent): RecordedPosition => [event.aggregateType, event.aggregateId, event.epoch, event.sequence];

/**
 * A run's checkpoint as of an hour done: the hour to send next, the events held back for it (each
 * aggregate's first, and the hours they sit in), and the aggregates refused so far (by key, each
 * with its refused event's id).
 */
export function checkpointState(
  replay: Pick<CheckpointState, 'replayId' | 'parameters' | 'to'>,
  nextHour: string | null,
  carry: readonly (readonly ArchivedEvent[])[],
  refused: ReadonlyMap<string, string>,
): CheckpointState {
  return {
    version: 1,
    ...replay,
    nextHour,
    carry: carry.map((events) => positionOf(events[0] as ArchivedEvent)),
    carryHours: [...new Set(carry.flat().map((event) => archiveHourOf(new Date(event.timeMs))))].sort(),
    refused: [...refused].map(([key, eventId]) => [...(JSON.parse(key) as [string, string]), eventId] as const),
    updatedAt: new Date().toISOString(),
  };
}

/** A checkpoint read back: its state and, per aggregate, the last event sent in the hour under way. */
export interface LoadedCheckpoint {
  readonly state: CheckpointState;
  readonly sent: ReadonlyMap<string, Position>;
}

/**
 * The checkpoint file a replay keeps when none is named: in the current directory, named after a
 * hash of the selection, so the same command finds it again and another selection never does.
 *
 * @example
 * ```ts
 * defaultCheckpointPath(plan.parameters); // /home/me/replay-3f9a1c0b2d4e.checkpoint
 * ```
 */
export function defaultCheckpointPath(parameters: ReplayParameters, cwd: string = process.cwd()): string {
  const hash = createHash('sha256').update(JSON.stringify(parameters)).digest('hex').slice(0, 12);
  return resolve(cwd, `replay-${hash}.checkpoint`);
}

/** The parameters that differ, each as recorded and as given. */
export function parameterDifferences(recorded: ReplayParameters, given: ReplayParameters): string[] {
  const differences: string[] = [];
  for (const name of ['bucket', 'from', 'to', 'types', 'aggregateType', 'aggregate', 'queueUrl'] as const) {
    const was = JSON.stringify(recorded[name]) ?? 'none';
    const now = JSON.stringify(given[name]) ?? 'none';
    if (was !== now) differences.push(`${name}: ${was} in the checkpoint, ${now} given`);
  }
  return differences;
}

const unreadable = (path: string, why: string, cause?: unknown) =>
  new ReplayCheckpointError(
    'REPLAY_CHECKPOINT_UNREADABLE',
    path,
    `replay checkpoint ${path} ${why}; allowed: a checkpoint a replay wrote (or start afresh with --restart, which replaces it)`,
    [],
    cause === undefined ? undefined : { cause },
  );

function isState(value: unknown): value is CheckpointState {
  const v = value as Partial<CheckpointState> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    v.version === 1 &&
    typeof v.replayId === 'string' &&
    typeof v.parameters === 'object' &&
    typeof v.to === 'string' &&
    (v.nextHour === null || typeof v.nextHour === 'string') &&
    Array.isArray(v.carry) &&
    Array.isArray(v.carryHours) &&
    (v.refused === undefined || Array.isArray(v.refused))
  );
}

/**
 * Reads a checkpoint, or `undefined` when there is no file. Progress lines of an hour other than
 * `nextHour` are stale and ignored; a last line cut short by a crash is ignored too.
 *
 * @throws {ReplayCheckpointError} `REPLAY_CHECKPOINT_UNREADABLE` when the file is not a checkpoint.
 */
export function readCheckpoint(path: string): LoadedCheckpoint | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unreadable(path, `cannot be read (${(error as Error).message})`, error);
  }
  const lines = text.split('\n');
  let state: unknown;
  try {
    state = JSON.parse(lines[0] as string);
  } catch (error) {
    throw unreadable(path, 'does not start with a replay checkpoint (its first line is not JSON)', error);
  }
  if (!isState(state)) throw unreadable(path, 'does not start with a replay checkpoint');
  const sent = new Map<string, Position>();
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line === '') continue;
    let progress: { hour?: unknown; sent?: unknown };
    try {
      progress = JSON.parse(line);
    } catch (error) {
      // Only the last line can be cut short, by a crash while it was written.
      if (lines.slice(i + 1).every((rest) => rest === '')) break;
      throw unreadable(path, `has a line ${i + 1} that is not JSON`, error);
    }
    if (progress.hour !== state.nextHour || !Array.isArray(progress.sent)) continue;
    for (const [type, id, epoch, sequence] of progress.sent as RecordedPosition[]) sent.set(aggregateKeyOf(type, id), { epoch, sequence });
  }
  return { state, sent };
}

/**
 * Writes a replay's checkpoint: the state whole, by writing a temporary file and renaming it over
 * the old one (a crash leaves the old or the new, never half of one); then each acknowledged
 * batch appended as one line, which a crash can only cut short at the end.
 */
export class CheckpointWriter {
  readonly path: string;
  #fd: number | undefined;
  #hour: string | null = null;

  constructor(path: string) {
    this.path = path;
  }

  /** Replaces the file with `state` alone. */
  write(state: CheckpointState): void {
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(state)}\n`);
    renameSync(temporary, this.path);
    this.close();
    this.#fd = openSync(this.path, 'a');
    this.#hour = state.nextHour;
  }

  /**
   * The run's first write, before anything is read: a path that cannot be written (its directory
   * missing, no permission) is refused as the option it is, as no later write could succeed either.
   */
  start(state: CheckpointState): void {
    try {
      this.write(state);
    } catch (error) {
      throw new ReplayOptionsError(
        'checkpointPath',
        `got ${JSON.stringify(this.path)}, which cannot be written (${errorMessage(error)}); allowed: a file in an existing directory the replay may write to; nothing was read or sent`,
        { cause: error },
      );
    }
  }

  /** Records events the queue acknowledged in the hour under way, each aggregate's last one. */
  sent(positions: readonly RecordedPosition[]): void {
    if (this.#fd === undefined || positions.length === 0) return;
    writeSync(this.#fd, `${JSON.stringify({ hour: this.#hour, sent: positions })}\n`);
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }
}
