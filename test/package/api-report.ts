/**
 * The package's public surface as a reviewable report, one per entry point of package.json's
 * `exports` (the idea of api-extractor's `.api.md`, built with TypeScript's compiler API alone):
 * every name the entry point exports, sorted, with its kind and its declaration as the published
 * `.d.ts` gives it to a user (inferred types written out, private members and doc comments left
 * out); then the package's declarations these name that no entry point exports, printed, and those
 * only other entry points export, each a line that says which and where their report is. No
 * absolute paths and no line numbers, so a report changes only when the surface does.
 */
import { relative, resolve } from 'node:path';
import ts from 'typescript';
import { entryPoints, ROOT } from '../docs/entry-exports.js';
import { byName, type DeclarationRef, isDeprecated, keyOf, kindOf, packageOf, statementsNamed } from './api-declarations.js';
import { printDeclaration } from './api-print.js';
import { declarationProgram, declarationsOf } from './api-program.js';
import { typeOnlyExports } from './api-type-only.js';
import { unexportedDeclarations } from './api-unexported.js';

/** One entry point's report: the file it goes to under `api/` and its text. */
export interface ApiReport {
  readonly specifier: string;
  readonly file: string;
  readonly text: string;
}

/** The section of one exported name: a comment line with its kind, then its declaration(s). */
function section(
  exported: string,
  target: ts.Symbol,
  typeOnly: boolean,
  declarationsFor: (source: ts.SourceFile) => ts.SourceFile,
): string {
  const sources = [...new Set((target.declarations ?? []).map((d) => d.getSourceFile()))];
  const external = sources.find((source) => source.fileName.includes('/node_modules/'));
  if (external !== undefined) {
    const declared = target.name === exported ? '' : ` (declared as ${target.name})`;
    return `// ${exported}: re-exported from ${packageOf(external.fileName)}${declared}\n`;
  }
  if (target.declarations?.some(ts.isSourceFile)) {
    // `export * as name from`: the report would have to list the module's names under it; none is exported so today.
    throw new Error(`${exported} re-exports a whole module as a namespace, which the API report does not show yet`);
  }
  const found = sources.flatMap((source) => {
    const declarations = declarationsFor(source);
    return statementsNamed(declarations, target.name).map((statement) => ({ statement, declarations }));
  });
  const statements = found.map(({ statement }) => statement);
  if (statements.length === 0)
    throw new Error(`no declaration of ${target.name} in the declarations of ${sources.map((s) => relative(ROOT, s.fileName))}`);
  const kinds = [...new Set(statements.map(kindOf))].join(' + ');
  const notes = [
    typeOnly && target.flags & ts.SymbolFlags.Value ? 'exported as a type only' : '',
    target.name === exported ? '' : `declared as ${target.name}`,
    statements.some(isDeprecated) ? '@deprecated' : '',
  ].filter((note) => note !== '');
  const heading = `// ${exported}: ${kinds}${notes.length === 0 ? '' : ` (${notes.join('; ')})`}`;
  return [heading, ...found.map(({ statement, declarations }) => printDeclaration(statement, declarations)), ''].join('\n');
}

/** The report's file under `api/`: `index.api.md` for the package's root, `consumer.api.md` for `dynamodb-outbox/consumer`. */
export const reportFile = (specifier: string): string =>
  `${specifier.includes('/') ? specifier.slice(specifier.indexOf('/') + 1).replaceAll('/', '.') : 'index'}.api.md`;

/** An exported name of an entry point and the symbol it stands for. */
interface Exported {
  readonly name: string;
  readonly target: ts.Symbol;
  readonly typeOnly: boolean;
}

/** The package's own declarations of an exported symbol (none for a dependency's). */
const ownDeclarations = (target: ts.Symbol): DeclarationRef[] =>
  [...new Set((target.declarations ?? []).map((d) => d.getSourceFile()))]
    .filter((source) => !source.fileName.includes('/node_modules/') && !target.declarations?.some(ts.isSourceFile))
    .map((source) => ({ source, name: target.name }));

/** The section of a declaration no entry point exports, which the exported ones name. */
function unexportedSection(ref: DeclarationRef, declarationsFor: (source: ts.SourceFile) => ts.SourceFile): string {
  const declarations = declarationsFor(ref.source);
  const statements = statementsNamed(declarations, ref.name);
  const kinds = [...new Set(statements.map(kindOf))].join(' + ');
  return [
    `// ${ref.name}: ${kinds} (exported by no entry point)`,
    ...statements.map((s) => printDeclaration(s, declarations, false)),
    '',
  ].join('\n');
}

/** Where a declaration is exported: the entry point and the name it has there. */
interface ExportedAt {
  readonly specifier: string;
  readonly name: string;
}

/**
 * The line of a declaration the entry point's API names that only other entry points export: its
 * kind, and the entry points (with the name each gives it) whose reports show it.
 */
function elsewhereLine(ref: DeclarationRef, at: readonly ExportedAt[], declarationsFor: (source: ts.SourceFile) => ts.SourceFile): string {
  const kinds = [...new Set(statementsNamed(declarationsFor(ref.source), ref.name).map(kindOf))].join(' + ');
  const where = at.map(({ specifier, name }) => `${specifier}${name === ref.name ? '' : ` as ${name}`}: see api/${reportFile(specifier)}`);
  return `// ${ref.name}: ${kinds} (exported by ${where.join('; ')})`;
}

/** The report of every entry point in package.json's `exports`, in its order. */
export function apiReports(root: string = ROOT): ApiReport[] {
  const entries = [...entryPoints(root)];
  const program = declarationProgram(
    root,
    entries.map(([, source]) => source),
  );
  const checker = program.getTypeChecker();
  const declarationsFor = declarationsOf(program);
  const exports = entries.map(([specifier, source]): Exported[] => {
    const file = program.getSourceFile(resolve(root, source));
    const module = file === undefined ? undefined : checker.getSymbolAtLocation(file);
    if (file === undefined || module === undefined) throw new Error(`${source} (behind ${specifier}) is no module the program read`);
    const typeOnly = typeOnlyExports(checker, file);
    return checker
      .getExportsOfModule(module)
      .map((symbol) => ({
        name: symbol.name,
        target: symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol,
        typeOnly: typeOnly.has(symbol.name),
      }))
      .sort((a, b) => byName(a.name, b.name));
  });
  const exportedAt = new Map<string, ExportedAt[]>();
  entries.forEach(([specifier], index) => {
    for (const { name, target } of exports[index] ?? []) {
      for (const key of ownDeclarations(target).map(keyOf)) exportedAt.set(key, [...(exportedAt.get(key) ?? []), { specifier, name }]);
    }
  });
  return entries.map(([specifier, source], index) => {
    const names = exports[index] ?? [];
    const sections = names.map(({ name, target, typeOnly }) => section(name, target, typeOnly, declarationsFor));
    const { unexported, exportedSomewhere } = unexportedDeclarations(
      program,
      declarationsFor,
      names.flatMap(({ target }) => ownDeclarations(target)),
      (ref) => exportedAt.has(keyOf(ref)),
    );
    const elsewhere = exportedSomewhere
      .map((ref) => ({ ref, at: exportedAt.get(keyOf(ref)) ?? [] }))
      .filter(({ at }) => !at.some((where) => where.specifier === specifier));
    const text = [
      `## API report of \`${specifier}\``,
      '',
      `> Generated from \`${source}\` by test/package/api-report.test.ts: do not edit it. After a deliberate change to`,
      '> the public surface, `npx vitest run test/package/api-report.test.ts -u` writes it anew; say what changed in CHANGELOG.md.',
      '',
      '```ts',
      sections.join('\n'),
      ...(unexported.length === 0
        ? []
        : [
            '// Declarations no entry point exports, which the ones above name: a user meets their members.',
            '',
            unexported.map((ref) => unexportedSection(ref, declarationsFor)).join('\n'),
          ]),
      ...(elsewhere.length === 0
        ? []
        : [
            '// Declarations only other entry points export, which the ones above name: their reports show them.',
            '',
            ...elsewhere.map(({ ref, at }) => elsewhereLine(ref, at, declarationsFor)),
            '',
          ]),
      '```',
      '',
    ].join('\n');
    return { specifier, file: reportFile(specifier), text };
  });
}
