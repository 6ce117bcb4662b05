import { describe, expect, it } from 'vitest';
import { startAborted } from '../../shared/local/stack/start-abort.js';
import { abortedStartExit } from '../../shared/local/stack/start-exit.js';

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
});
