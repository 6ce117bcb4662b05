import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { LocalStackError } from '../errors.js';

/**
 * Where the local event source mapping keeps each shard's checkpoint: the sequence number of the
 * last record it is done with (handed over and answered, filtered out or given up on), as a
 * deployed mapping keeps it, so a restart goes on after it instead of at the stream's start.
 */
export interface CheckpointStore {
  /** The shard's checkpoint, if one was kept. */
  get(shardId: string): string | undefined;
  /** Moves a shard's checkpoint; a file store writes it out in the background. */
  set(shardId: string, sequenceNumber: string): void;
  /** Forgets the checkpoints of shards no longer in the stream. */
  retain(shardIds: ReadonlySet<string>): void;
  /** Resolves once every checkpoint set so far is stored; rejects when it could not be. */
  flush(): Promise<void>;
}

/** Checkpoints in memory, for one run (and tests). */
export class MemoryCheckpointStore implements CheckpointStore {
  readonly shards = new Map<string, string>();

  get(shardId: string): string | undefined {
    return this.shards.get(shardId);
  }

  set(shardId: string, sequenceNumber: string): void {
    this.shards.set(shardId, sequenceNumber);
  }

  retain(shardIds: ReadonlySet<string>): void {
    for (const id of this.shards.keys()) if (!shardIds.has(id)) this.shards.delete(id);
  }

  async flush(): Promise<void> {}
}

/** The file `npm start -- --persist DIR` keeps the relay's checkpoints in, inside DIR. */
export const RELAY_CHECKPOINT_FILE = 'relay-checkpoints.json';

interface CheckpointFile {
  readonly streamArn: string;
  readonly shards: Record<string, string>;
}

function parseCheckpointFile(text: string, path: string): CheckpointFile {
  const fail = (what: string): never => {
    throw new LocalStackError(
      'INVALID_CHECKPOINT',
      `${path} is not a relay checkpoint file (${what}); allowed: the file this stack writes, {"streamArn": "...", "shards": {"<shard id>": "<sequence number>"}}; delete it to read the stream from its oldest record`,
    );
  };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return fail('not JSON');
  }
  const file = value as Partial<CheckpointFile> | null;
  if (typeof file !== 'object' || file === null || typeof file.streamArn !== 'string') return fail('no streamArn');
  if (typeof file.shards !== 'object' || file.shards === null || Object.values(file.shards).some((s) => !/^\d+$/.test(String(s)))) {
    return fail('shards is not an object of sequence numbers');
  }
  return file as CheckpointFile;
}

/**
 * Checkpoints in a JSON file, for the stream `streamArn`: a file kept for another stream (the
 * table was created again) is ignored and replaced. Every change is written to a temporary file
 * that is then renamed over the old one, so a crash leaves the old or the new checkpoints, never
 * half a file; changes made while a write is under way go out together in the next one. A failed
 * write is tried again on the next change or `flush()`, which rejects if it fails again.
 *
 * @example
 * ```ts
 * const checkpoints = await fileCheckpointStore(join(dir, RELAY_CHECKPOINT_FILE), streamArn);
 * new StreamRunner({ ..., checkpoints });
 * ```
 */
export async function fileCheckpointStore(path: string, streamArn: string, onError?: (error: unknown) => void): Promise<CheckpointStore> {
  let text: string | undefined;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const stored = text === undefined ? undefined : parseCheckpointFile(text, path);
  return new FileCheckpointStore(path, streamArn, stored?.streamArn === streamArn ? stored.shards : {}, onError);
}

class FileCheckpointStore extends MemoryCheckpointStore {
  private dirty = false;
  private writing: Promise<void> | undefined;
  /** Why the last write failed, while the file is behind. */
  private failure: unknown;

  constructor(
    private readonly path: string,
    private readonly streamArn: string,
    shards: Record<string, string>,
    private readonly onError: ((error: unknown) => void) | undefined,
  ) {
    super();
    for (const [id, sequenceNumber] of Object.entries(shards)) this.shards.set(id, sequenceNumber);
  }

  override set(shardId: string, sequenceNumber: string): void {
    if (this.shards.get(shardId) === sequenceNumber) return;
    super.set(shardId, sequenceNumber);
    this.schedule();
  }

  override retain(shardIds: ReadonlySet<string>): void {
    const before = this.shards.size;
    super.retain(shardIds);
    if (this.shards.size !== before) this.schedule();
  }

  /** Waits for the write under way; after a failed one, writes again, and rejects if that fails too. */
  override async flush(): Promise<void> {
    for (let retried = false; ; retried = true) {
      while (this.writing !== undefined) await this.writing;
      if (!this.dirty) return;
      if (retried) throw this.failure;
      this.writing = this.drain();
    }
  }

  private schedule(): void {
    this.dirty = true;
    this.writing ??= this.drain();
  }

  private async drain(): Promise<void> {
    const temporary = `${this.path}.${process.pid}.tmp`;
    try {
      while (this.dirty) {
        this.dirty = false;
        const file: CheckpointFile = { streamArn: this.streamArn, shards: Object.fromEntries(this.shards) };
        await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`);
        await rename(temporary, this.path);
      }
    } catch (error) {
      // No half-done write is left in the folder; kept dirty: the next change, or flush(), tries again.
      await rm(temporary, { force: true }).catch(() => undefined);
      this.dirty = true;
      this.failure = error;
      this.onError?.(error);
    } finally {
      this.writing = undefined;
    }
  }
}
