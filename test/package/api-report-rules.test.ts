import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type ApiReport, apiReports } from './api-report.js';

/*
 * What the API report shows of a declaration, on a small package of its own (test/fixtures/api-report):
 * names through `export *`, `export type *` and renames, sorted; a value exported for types only
 * marked so; inferred types written out; no private members (a private constructor stays), no
 * implementation signature, no doc comments but a deprecation; the package's declarations no
 * entry point exports that these name; and where those only another entry point exports are shown.
 */

const FIXTURE = fileURLToPath(new URL('../fixtures/api-report/', import.meta.url));

/** The report's TypeScript block. */
const block = (report: ApiReport | undefined): string => report?.text.split('```ts\n')[1]?.split('```')[0] ?? '';

describe('the API report of a package', () => {
  const reports = apiReports(FIXTURE);
  const byFile = new Map(reports.map((report) => [report.file, report]));

  it('has one report for each entry point of its exports map, named after the subpath', () => {
    expect(reports.map((report) => [report.specifier, report.file])).toEqual([
      ['api-report-fixture', 'index.api.md'],
      ['api-report-fixture/extra', 'extra.api.md'],
    ]);
  });

  it('lists every exported name with its kind and its declaration as the .d.ts gives it to a user, then what they name unexported', () => {
    expect(block(byFile.get('index.api.md'))).toBe(`// alpha: const
export const alpha = 1;

// beta: const
export const beta = "b";

// Color: enum
export enum Color {
    Red = "red",
    Blue = "blue"
}

// Handle: class (exported as a type only)
export class Handle {
    value: number;
}

// Level: type
export type Level = (typeof LEVELS)[keyof typeof LEVELS];

// LEVELS: const
export const LEVELS: {
    readonly low: 1;
    readonly high: 3;
};

// OLD_LEVELS: const (@deprecated)
export const OLD_LEVELS: {
    readonly low: 1;
    readonly high: 3;
};

// Options: interface
export interface Options {
    readonly retries?: number;
}

// pick: function
export function pick(x: string): string;
export function pick(x: number): number;

// Registry: class
export class Registry {
    static readonly shared: Registry;
    private constructor();
}

// Renamed: class (declared as Hidden)
export class Hidden {
    readonly id = "h";
}

// Widget: class
export class Widget {
    readonly size: number;
    protected readonly tag: string;
    // @deprecated
    width: number;
    constructor(size: number, inner: string);
    grow(by?: number, options?: GrowOptions): number;
}

// Worker: class (exported as a type only)
export class Worker {
    start(): void;
}

// Declarations no entry point exports, which the ones above name: a user meets their members.

// GrowOptions: interface (exported by no entry point)
interface GrowOptions {
    readonly step?: Step;
}

// Step: type (exported by no entry point)
type Step = 1 | 2;

`);
  });

  it('follows `export *` of a module that has a class from `export type *`, prints a declaration two reports share the same in both, and points to the report of one only another entry point exports', () => {
    const extra = block(byFile.get('extra.api.md'));
    expect(extra.split('\n').filter((line) => line.startsWith('// '))).toEqual([
      '// Gauge: interface',
      '// Handle: class (exported as a type only)',
      '// Options: interface',
      '// pick: function',
      '// Widget: class (exported as a type only)',
      '// Declarations no entry point exports, which the ones above name: a user meets their members.',
      '// GrowOptions: interface (exported by no entry point)',
      '// Step: type (exported by no entry point)',
      '// Declarations only other entry points export, which the ones above name: their reports show them.',
      '// Hidden: class (exported by api-report-fixture as Renamed: see api/index.api.md)',
      '// Level: type (exported by api-report-fixture: see api/index.api.md)',
    ]);
    expect(extra).toContain('export class Widget {\n    readonly size: number;');
    expect(extra.split('// @deprecated').length - 1).toBe(1);
  });

  it('names no path of the machine it was made on', () => {
    for (const report of reports) expect(report.text).not.toContain(FIXTURE);
  });
});
