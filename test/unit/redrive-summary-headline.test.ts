import { describe, expect, it } from 'vitest';
import { formatSummary } from '../../shared/redrive/summary.js';
import type { RedriveSummary } from '../../shared/redrive/types.js';

const finished: RedriveSummary = {
  status: 'completed',
  source: 'dlq',
  target: 'topic',
  before: 3,
  after: 0,
  processed: 3,
  moved: 3,
  republished: 3,
  failed: [],
  skipped: [],
};
const failed = [
  { id: 'm-1', reason: 'InternalError: try again' },
  { id: 'm-2', reason: 'InternalError: try again' },
];
const skipped = [{ id: 'm-3', reason: 'no envelope' }];
const headline = (summary: RedriveSummary): string => formatSummary(summary).split('\n')[0] as string;

describe('the headline of a redrive summary', () => {
  it('says "Redrive completed" alone when every message asked for moved', () => {
    expect(headline(finished)).toBe('Redrive completed');
  });

  it('says a finished run had failures, and how many stay in the source (it said "Redrive completed" and the run exits 1)', () => {
    const summary = { ...finished, moved: 1, republished: 1, after: 2, failed };
    expect(headline(summary)).toBe('Redrive completed with failures — 2 failed, kept in the source');
    // The status users branch on, and the rest of the summary, stay.
    expect(formatSummary(summary)).toContain('\n  status:      completed\n');
    expect(formatSummary(summary)).toContain('\n  failed:      2\n');
  });

  it('counts the failed and the skipped when both stay', () => {
    expect(headline({ ...finished, moved: 0, republished: 0, after: 3, failed, skipped })).toBe(
      'Redrive completed with failures — 2 failed and 1 skipped, kept in the source',
    );
  });

  it('says what was skipped and stays, without "failures", when nothing failed (the run exits 3)', () => {
    expect(headline({ ...finished, moved: 2, republished: 2, after: 1, skipped })).toBe(
      'Redrive completed — 1 skipped, kept in the source',
    );
  });

  it('leaves the dry run and the interrupted run as they were', () => {
    expect(headline({ ...finished, status: 'dry-run', failed })).toBe('DRY RUN — nothing was republished or deleted');
    expect(headline({ ...finished, status: 'interrupted', failed })).toBe('Redrive interrupted — the counts are partial');
  });
});
