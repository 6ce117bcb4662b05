import { describe, expect, it } from 'vitest';
import { LocalStackError, LocalStartError } from '../../shared/local/errors.js';
import { stoppedPhrase, withStopFailures } from '../../shared/local/stack/stop-failures.js';

const stuck = new Error('the lease could not be given up');
const hung = new Error('the emulator did not close');

describe('withStopFailures', () => {
  it('a LocalStartError with a cause of its own keeps it, holds every stop failure in errors and names them', () => {
    const own = new Error('spawn java ENOENT');
    const error = new LocalStartError('DynamoDB Local could not start', { cause: own });

    expect(withStopFailures(error, [stuck, hung])).toBe(error);

    expect(error.cause).toBe(own);
    expect(error.errors).toEqual([stuck, hung]);
    expect(error.message).toBe(
      "DynamoDB Local could not start; of what the start had started, 2 parts failed to stop (the lease could not be given up; the emulator did not close: they are in the error's `errors`), the others have been stopped",
    );
  });

  it('a LocalStackError with a cause of its own does too', () => {
    const own = new Error('listen EADDRINUSE');
    const error = new LocalStackError('PORT_IN_USE', 'port 4566 is taken', { cause: own });

    withStopFailures(error, [stuck]);

    expect(error).toMatchObject({ cause: own, errors: [stuck] });
    expect(error.message).toContain(
      "port 4566 is taken; of what the start had started, 1 part failed to stop (the lease could not be given up: it is in the error's `errors`)",
    );
  });

  it('nothing to report leaves the error as it was', () => {
    const error = new LocalStackError('INVALID_OPTION', 'bad');
    withStopFailures(error, []);
    expect(error.message).toBe('bad');
    expect(error.errors).toBeUndefined();
  });

  it("an error of another kind gets errors, its message its own; an AggregateError's errors stay, the failure its cause when it has none", () => {
    const other = new Error('ResourceNotFoundException');
    withStopFailures(other, [stuck]);
    expect(other).toMatchObject({ message: 'ResourceNotFoundException', errors: [stuck] });

    const aggregate = new AggregateError([other], 'several');
    withStopFailures(aggregate, [stuck]);
    expect(aggregate.errors).toEqual([other]);
    expect(aggregate.cause).toBe(stuck);
  });

  it('stoppedPhrase says nothing is left running only when every part stopped', () => {
    expect(stoppedPhrase('it', [])).toBe('what it had started has been stopped, nothing is left running');
    expect(stoppedPhrase('it', [stuck])).not.toContain('nothing is left running');
  });
});
