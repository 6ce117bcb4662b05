import { describe, expect, it } from 'vitest';
import { ReplayStoppedError } from '../../shared/archive/replay-errors.js';
import type { ReplaySummary } from '../../shared/archive/replay-types.js';
import { parseArgsProblem } from '../../shared/cli-tokens.js';
import { errorMessage } from '../../shared/error-message.js';
import { RedriveStoppedError } from '../../shared/redrive/errors.js';
import type { RedriveSummary } from '../../shared/redrive/types.js';

describe('errorMessage: what a command prints of a caught value', () => {
  it("is an error's message as it is", () => {
    expect(errorMessage(new Error('Queue is gone'))).toBe('Queue is gone');
    expect(errorMessage({ name: 'ThrottlingException', message: 'Rate exceeded' })).toBe('Rate exceeded');
  });

  it('is a thrown string itself', () => {
    expect(errorMessage('boom')).toBe('boom');
  });

  it('names an error with an empty message by its name', () => {
    const error = new Error('');
    error.name = 'TimeoutError';
    expect(errorMessage(error)).toBe('TimeoutError with no message');
    expect(errorMessage(new Error('  '))).toBe('Error with no message');
  });

  it.each([
    [null, 'null'],
    [undefined, 'undefined'],
    [42, '42'],
    ['', '""'],
    [{ code: 'E_X' }, '{"code":"E_X"}'],
    [{ message: 7 }, '{"message":7}'],
    [10n, '10n'],
  ])('says what was thrown for %s, in one line', (thrown, shown) => {
    expect(errorMessage(thrown)).toBe(`no error message; the value thrown was ${shown}`);
  });

  it('cuts a long value thrown at 200 characters, in one line', () => {
    const text = errorMessage({ lines: 'a\n'.repeat(300) });
    expect(text).not.toContain('\n');
    expect(text.length).toBeLessThan(260);
    expect(text.endsWith('…')).toBe(true);
  });
});

describe('parseArgsProblem', () => {
  it('reads a non-Error rejection without throwing', () => {
    expect(parseArgsProblem(null)).toBe('no error message; the value thrown was null');
    expect(parseArgsProblem(undefined)).toBe('no error message; the value thrown was undefined');
    expect(parseArgsProblem('bad flag')).toBe('bad flag');
  });

  it("keeps parseArgs's message in one line without its hint", () => {
    const error = new TypeError("Unknown option '--x'. To specify a positional argument starting with a '-', place it at the end.");
    expect(parseArgsProblem(error)).toBe("Unknown option '--x'");
  });
});

describe('RedriveStoppedError and ReplayStoppedError: a cause that is no Error', () => {
  it('say what was thrown instead of ": null"', () => {
    const redrive = new RedriveStoppedError({ processed: 3 } as RedriveSummary, null);
    expect(redrive.message).toBe('stopped after 3 messages: no error message; the value thrown was null');
    const replay = new ReplayStoppedError({ sent: 2 } as ReplaySummary, 'socket hang up');
    expect(replay.message).toBe('replay stopped after 2 events sent: socket hang up');
  });
});
