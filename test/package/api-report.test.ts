import { existsSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { entryPoints, ROOT } from '../docs/entry-exports.js';
import { type ApiReport, apiReports, reportFile } from './api-report.js';

/*
 * The package's public surface, entry point by entry point, against the reports under api/: a
 * change to an exported name, signature, member or type shows in review as a diff of api/*.api.md,
 * and CI (which writes no snapshots) fails until the report is written anew with
 * `npx vitest run test/package/api-report.test.ts -u` and the change is in CHANGELOG.md. A report
 * missing on disk fails too, outside CI as well (where vitest would write a new snapshot and pass):
 * a new entry point's surface is written with -u, deliberately.
 */

const ENTRIES = [...entryPoints().keys()];
const API = resolve(ROOT, 'api');
const CHANGED = 'the public surface changed: if deliberately, write the report anew with -u and say so in CHANGELOG.md';
let reports: ReadonlyMap<string, ApiReport>;
/** The reports missing on disk before this run wrote any. */
let missing: string[];

beforeAll(() => {
  reports = new Map(apiReports().map((report) => [report.specifier, report]));
  missing = ENTRIES.map(reportFile).filter((file) => !existsSync(resolve(API, file)));
});

describe('the API reports under api/', () => {
  it.each(ENTRIES)('%s: its report is the surface its sources declare', async (specifier) => {
    const report = reports.get(specifier);
    expect(report?.file).toBe(reportFile(specifier));
    await expect(report?.text).toMatchFileSnapshot(`../../api/${reportFile(specifier)}`, CHANGED);
  });

  it('exist for every entry point, unless written with -u (a new entry point is a change to review)', () => {
    const writing = expect.getState().snapshotState.snapshotUpdateState === 'all';
    expect(writing ? [] : missing, 'no report on disk: write it with -u and say so in CHANGELOG.md').toEqual([]);
  });

  it('are of entry points package.json still has (the report of a removed one is deleted by hand)', () => {
    const expected = new Set(ENTRIES.map(reportFile));
    const files = existsSync(API) ? readdirSync(API).filter((file) => file.endsWith('.api.md')) : [];
    expect(files.filter((file) => !expected.has(file))).toEqual([]);
  });
});
