import type { ShardInfo } from '../processor/stream-source.js';
import type { StreamRunnerStats } from './stream-runner.js';

/** A shard as the runner tracks it. */
export interface ShardState {
  readonly shard: ShardInfo;
  status: 'waiting' | 'reading' | 'ended';
  /** Bumped each time the shard was read to its current end with nothing left to hand over. */
  caughtUp: number;
}

/** What a shard reader needs from its runner. */
export interface ReaderContext {
  readonly stats: StreamRunnerStats;
  stopped(): boolean;
  sleep(ms: number): Promise<void>;
  report(error: unknown): void;
  /** Whether a complete listing of the stream's shards has this one (rejects when the listing fails). */
  listed(shardId: string): Promise<boolean>;
}
