import {
  DescribeStreamCommand,
  ExpiredIteratorException,
  type GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import type { StreamsApi } from '../../shared/processor/stream-source.js';
import { Gate } from './gate.js';
import type { SimulatedStream } from './simulated-stream.js';

const gates: Gate[] = [];

/** Lets every hung call through, for an `afterEach`: a test that fails mid-hang leaves none behind. */
export function answerHungCalls(): void {
  for (const gate of gates.splice(0)) gate.open();
}

/** An error as the SDK throws it for an AWS error answer: `name` and the HTTP status. */
export const awsError = (name: string, status: number, message = name): Error =>
  Object.assign(new Error(message), { name, $fault: status >= 500 ? 'server' : 'client', $metadata: { httpStatusCode: status } });

/**
 * The simulated stream behind faults a real one shows: `GetRecords` answering
 * `ExpiredIteratorException` however fresh the iterator (the next `expireReads` calls), or not answering at all,
 * whatever abort signal it is given (`hangReads()`, a black-holed connection on a client without
 * timeouts); `DescribeStream` failing with the errors queued in `describeFailures`. Counts calls.
 */
export class FaultyStreams implements StreamsApi {
  /** How many of the next `GetRecords` calls answer `ExpiredIteratorException` (`Infinity`: all). */
  expireReads = 0;
  readonly describeFailures: Error[] = [];
  readonly calls = { describe: 0, iterators: 0, reads: 0 };
  private readonly gate = new Gate();

  constructor(private readonly stream: SimulatedStream) {
    gates.push(this.gate);
  }

  hangReads(): void {
    this.gate.close();
  }

  answerReads(): void {
    this.gate.open();
  }

  send(command: never): Promise<never> {
    return this.answer(command as DescribeStreamCommand | GetShardIteratorCommand | GetRecordsCommand) as Promise<never>;
  }

  private async answer(command: DescribeStreamCommand | GetShardIteratorCommand | GetRecordsCommand): Promise<unknown> {
    if (command instanceof DescribeStreamCommand) {
      this.calls.describe++;
      const failure = this.describeFailures.shift();
      if (failure !== undefined) throw failure;
      return this.stream.send(command);
    }
    if (command instanceof GetShardIteratorCommand) {
      this.calls.iterators++;
      return this.stream.send(command);
    }
    this.calls.reads++;
    await this.gate.passed();
    if (this.expireReads > 0 && this.expireReads-- > 0)
      throw new ExpiredIteratorException({ message: 'Iterator expired', $metadata: { httpStatusCode: 400 } });
    return this.stream.send(command);
  }
}
