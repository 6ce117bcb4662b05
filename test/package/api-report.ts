/**
 * The package's public surface as a reviewable report, one per entry point of package.json's
 * `exports` (the idea of api-extractor's `.api.md`, built with TypeScript's compiler API alone):
 * every name the entry point exports, sorted, with its kind and its declaration as the published
 * `.d.ts` gives it to a user (inferred types written out, private members and doc comments left
 * out). No absolute paths and no line numbers, so a report changes only when the surface does.
 */
import { relative, resolve } from 'node:path';
import ts from 'typescript';
import { entryPoints, ROOT } from '../docs/entry-exports.js';
import { printDeclaration } from './api-print.js';
import { declarationProgram, declarationsOf } from './api-program.js';
import { typeOnlyExports } from './api-type-only.js';

/** One entry point's report: the file it goes to under `api/` and its text. */
export interface ApiReport {
  readonly specifier: string;
  readonly file: string;
  readonly text: string;
}

/** The top-level statements of a `.d.ts` that declare `name` (overloads and merged declarations give several). */
function statementsNamed(declarations: ts.SourceFile, name: string): ts.Statement[] {
  return declarations.statements.flatMap((statement): ts.Statement[] => {
    if (ts.isVariableStatement(statement)) {
      const declaration = statement.declarationList.declarations.find((d) => ts.isIdentifier(d.name) && d.name.text === name);
      if (declaration === undefined) return [];
      // `declare const a: A, b: B;` keeps the one asked for.
      return [
        ts.factory.updateVariableStatement(
          statement,
          statement.modifiers,
          ts.factory.updateVariableDeclarationList(statement.declarationList, [declaration]),
        ),
      ];
    }
    const declared = (statement as ts.Statement & { readonly name?: ts.Node }).name;
    return declared !== undefined && ts.isIdentifier(declared) && declared.text === name && !ts.isImportEqualsDeclaration(statement)
      ? [statement]
      : [];
  });
}

/** What a declaration is, as a reader names it. */
function kindOf(statement: ts.Statement): string {
  if (ts.isClassDeclaration(statement))
    return ts.getCombinedModifierFlags(statement) & ts.ModifierFlags.Abstract ? 'abstract class' : 'class';
  if (ts.isInterfaceDeclaration(statement)) return 'interface';
  if (ts.isTypeAliasDeclaration(statement)) return 'type';
  if (ts.isFunctionDeclaration(statement)) return 'function';
  if (ts.isEnumDeclaration(statement)) return ts.getCombinedModifierFlags(statement) & ts.ModifierFlags.Const ? 'const enum' : 'enum';
  if (ts.isModuleDeclaration(statement)) return 'namespace';
  if (ts.isVariableStatement(statement)) {
    const flags = statement.declarationList.flags;
    return flags & ts.NodeFlags.Const ? 'const' : flags & ts.NodeFlags.Let ? 'let' : 'var';
  }
  return ts.SyntaxKind[statement.kind];
}

/** Whether the doc comment of a top-level declaration deprecates it (a variable's is on its statement). */
const isDeprecated = (statement: ts.Statement): boolean =>
  ts
    .getJSDocTags(ts.isVariableStatement(statement) ? (statement.declarationList.declarations[0] ?? statement) : statement)
    .some((tag) => tag.tagName.text === 'deprecated');

/** The package a declaration file under node_modules belongs to (`@scope/name` or `name`). */
const packageOf = (file: string): string => {
  const [first = '', second = ''] = file.slice(file.lastIndexOf('/node_modules/') + '/node_modules/'.length).split('/');
  return first.startsWith('@') ? `${first}/${second}` : first;
};

/** Names in the order a reader looks them up: case aside, then as written (so the order is the same everywhere). */
const byName = (a: string, b: string): number => {
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
};

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

/** The report of every entry point in package.json's `exports`, in its order. */
export function apiReports(root: string = ROOT): ApiReport[] {
  const entries = [...entryPoints(root)];
  const program = declarationProgram(
    root,
    entries.map(([, source]) => source),
  );
  const checker = program.getTypeChecker();
  const declarationsFor = declarationsOf(program);
  return entries.map(([specifier, source]) => {
    const file = program.getSourceFile(resolve(root, source));
    const module = file === undefined ? undefined : checker.getSymbolAtLocation(file);
    if (file === undefined || module === undefined) throw new Error(`${source} (behind ${specifier}) is no module the program read`);
    const typeOnly = typeOnlyExports(checker, file);
    const sections = checker
      .getExportsOfModule(module)
      .map((symbol) => ({ name: symbol.name, symbol }))
      .sort((a, b) => byName(a.name, b.name))
      .map(({ name, symbol }) => {
        const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
        return section(name, target, typeOnly.has(name), declarationsFor);
      });
    const text = [
      `## API report of \`${specifier}\``,
      '',
      `> Generated from \`${source}\` by test/package/api-report.test.ts: do not edit it. After a deliberate change to`,
      '> the public surface, `npx vitest run test/package/api-report.test.ts -u` writes it anew; say what changed in CHANGELOG.md.',
      '',
      '```ts',
      sections.join('\n'),
      '```',
      '',
    ].join('\n');
    return { specifier, file: reportFile(specifier), text };
  });
}
