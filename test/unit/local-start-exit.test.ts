import { describe, expect, it } from 'vitest';
import { LocalStackError } from '../../shared/local/errors.js';
import { startAborted } from '../../shared/local/stack/start-abort.js';
import { abortedStartExit, startFailureMessage } from '../../shared/local/stack/start-exit.js';
import { withStopFailures } from '../../shared/local/stack/stop-failures.js';

const abortedBy = (reason: string): AbortSignal => {
  const controller = new AbortController();
  controller.abort(reason);
  return controller.signal;
};

describe("npm start's end after a signal aborted its start", () => {
  it('every part stopped: nothing is left running, on stdout, with the exit code a shell gives the signal', () => {
    expect(abortedStartExit(startAborted(abortedBy('SIGINT'), 'while starting DynamoDB Local'), 'SIGINT')).toEqual({
      stream: 'stdout',
      line: 'stopped before the stack was up; nothing is left running',
      code: 130,
    });
    expect(abortedStartExit(startAborted(abortedBy('SIGTERM'), 'while starting DynamoDB Local'), 'SIGTERM').code).toBe(143);
  });

  it("a part failed to stop: the error says what was left, on stderr, with exit code 1, not the signal's", () => {
    const error = startAborted(abortedBy('SIGINT'), 'while starting the consumers', [new Error('the lease could not be given up')]);

    const exit = abortedStartExit(error, 'SIGINT');

    expect(exit).toEqual({ stream: 'stderr', line: `npm start: ${error.message}`, code: 1 });
    expect(exit.line).toContain('1 part failed to stop (the lease could not be given up');
    expect(exit.line).not.toContain('nothing is left running');
  });

  it("a failed start's line names the parts that failed to stop once, whatever the error", () => {
    const stuck = new Error('the lease could not be given up');
    const sdk = withStopFailures(new Error('ResourceNotFoundException: table gone'), [stuck]);
    expect(startFailureMessage(sdk)).toBe(
      "ResourceNotFoundException: table gone; of what the start had started, 1 part failed to stop (the lease could not be given up: it is in the error's `errors`), the others have been stopped",
    );

    const own = withStopFailures(new LocalStackError('INVALID_OPTION', 'bad handler'), [stuck]);
    expect(startFailureMessage(own)).toBe((own as Error).message);
    expect(startFailureMessage(own).match(/failed to stop/g)).toHaveLength(1);

    expect(startFailureMessage(new Error('ResourceNotFoundException'))).toBe('ResourceNotFoundException');
    expect(startFailureMessage('boom')).toBe('boom');
  });
});
