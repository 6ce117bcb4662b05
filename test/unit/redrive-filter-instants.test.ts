import { describe, expect, it } from 'vitest';
import { parseReplayInstant } from '../../shared/archive/replay-options.js';
import { RedriveOptionsError } from '../../shared/redrive/errors.js';
import { filterFromArgs } from '../../shared/redrive/filter-args.js';

/** What `redrive`'s `--since` makes of a value: the instant, or the refusal's message. */
function redriveSince(value: string): number | string {
  try {
    return filterFromArgs({ since: value })?.since?.getTime() as number;
  } catch (error) {
    expect(error).toBeInstanceOf(RedriveOptionsError);
    return (error as Error).message;
  }
}

/** What `replay`'s `--from` makes of a value: the instant, or `refused`. */
function replayFrom(value: string): number | 'refused' {
  try {
    return parseReplayInstant(value, '--from');
  } catch {
    return 'refused';
  }
}

describe("redrive's --since and --until take the forms replay's --from and --to take", () => {
  it('refuses 24:00, which Date reads as the next midnight and replay refuses, naming the flag, the value and what is allowed', () => {
    for (const value of ['2026-05-01T24:00:00Z', '2026-05-01T24:00Z', '2026-05-01T24:00:00.000+02:00']) {
      expect(replayFrom(value)).toBe('refused');
      expect(redriveSince(value)).toBe(
        `Invalid redrive option --since: got ${JSON.stringify(value)}; allowed: a UTC date (2026-03-01, its midnight) or an ISO 8601 time with Z or an offset (2026-03-01T10:30:00Z)`,
      );
    }
    expect(() => filterFromArgs({ until: '2026-05-01T24:00:00Z' })).toThrow(/^Invalid redrive option --until: got "2026-05-01T24:00:00Z"/);
  });

  it('takes what replay takes, at the same instant: a leap second, spaces around the value', () => {
    expect(redriveSince('2026-06-30T23:59:60Z')).toBe(Date.parse('2026-07-01T00:00:00Z'));
    expect(redriveSince(' 2026-05-01 ')).toBe(Date.parse('2026-05-01T00:00:00Z'));
  });

  it('agrees with replay on every form, accepted or refused', () => {
    const forms = [
      '2026-05-01',
      '2026-05-01T10:00Z',
      '2026-05-01T10:00:00Z',
      '2026-05-01T10:00:00.123456789Z',
      '2026-05-01T10:00:00+23:59',
      '2026-05-01T10:00:00-00:00',
      '2028-02-29T10:00:00Z',
      '2026-05-01T23:59:60Z',
      '2026-05-01T10:00:60Z',
      ' 2026-05-01T10:00:00Z ',
      '2026-05-01T24:00:00Z',
      '2026-05-01T24:00:01Z',
      '2026-05-01T25:00:00Z',
      '2026-05-01T10:60:00Z',
      '2026-05-01T10:00:00+24:00',
      '2026-05-01T10:00:00+05:60',
      '2026-02-29',
      '2026-02-30T10:00:00Z',
      '2026-05-01T10:00:00',
      '2026-05-01t10:00:00z',
      '+002026-05-01T10:00:00Z',
      '2026-05',
      'yesterday',
      '',
    ];
    for (const value of forms) {
      const replay = replayFrom(value);
      const redrive = redriveSince(value);
      if (replay === 'refused') expect(redrive, value).toMatch(/^Invalid redrive option --since: got /);
      else expect(redrive, value).toBe(replay);
    }
  });
});
