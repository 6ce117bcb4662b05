/**
 * The package's public surface as its sources declare it: the entry points of package.json's
 * `exports` map, and the names (values and types) each one's source index exports. Read with
 * TypeScript's parser alone (no program, no build), so it takes milliseconds.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface PackageJson {
  readonly name: string;
  readonly exports: Readonly<Record<string, string | { readonly types: string }>>;
}

/**
 * Each import specifier the package answers (`dynamodb-outbox`, `dynamodb-outbox/consumer`, …)
 * with the source module behind its `types` (`./dist/shared/consumer/index.d.ts` →
 * `shared/consumer/index.ts`); `./package.json` names no module and is left out.
 */
export function entryPoints(root: string = ROOT): Map<string, string> {
  const { name, exports } = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as PackageJson;
  const entries = new Map<string, string>();
  for (const [subpath, target] of Object.entries(exports)) {
    if (typeof target === 'string') continue;
    const source = target.types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts');
    entries.set(subpath === '.' ? name : `${name}/${subpath.slice(2)}`, source);
  }
  return entries;
}

/** The source file a relative specifier of `from` names: `./x.js` is `x.ts` (or `x/index.ts`). */
function resolveSource(from: string, specifier: string): string {
  const base = resolve(dirname(from), specifier.replace(/\.js$/, ''));
  const found = [`${base}.ts`, `${base}.tsx`, resolve(base, 'index.ts')].find((candidate) => existsSync(candidate));
  if (found === undefined) throw new Error(`${relative(ROOT, from)} re-exports '${specifier}', which names no source file`);
  return found;
}

const isExported = (statement: ts.Statement): boolean =>
  ts.canHaveModifiers(statement) && (ts.getModifiers(statement) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

const isDefault = (statement: ts.Statement): boolean =>
  ts.canHaveModifiers(statement) && (ts.getModifiers(statement) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);

/** The names a declaration statement with `export` binds (`export const a = 1, b = 2` binds two). */
function declaredNames(statement: ts.Statement, file: string): string[] {
  if (isDefault(statement)) return ['default'];
  if (ts.isVariableStatement(statement)) {
    return statement.declarationList.declarations.map((declaration) => {
      if (ts.isIdentifier(declaration.name)) return declaration.name.text;
      throw new Error(`${relative(ROOT, file)} exports a destructured variable, which this reader does not follow`);
    });
  }
  const { name } = statement as ts.Statement & { readonly name?: ts.Node };
  return name !== undefined && ts.isIdentifier(name) ? [name.text] : [];
}

/**
 * Every name the module at `file` (absolute) exports, types included: its own exported
 * declarations, its `export { … }` lists (under the exported name) and what each
 * `export * from` / `export type * from` brings (all but `default`, as ES modules do).
 */
export function exportedNames(file: string, visiting: ReadonlySet<string> = new Set()): Set<string> {
  if (visiting.has(file)) return new Set();
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const names = new Set<string>();
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause;
      if (clause === undefined) {
        const specifier = (statement.moduleSpecifier as ts.StringLiteral).text;
        for (const name of exportedNames(resolveSource(file, specifier), new Set([...visiting, file]))) {
          if (name !== 'default') names.add(name);
        }
      } else if (ts.isNamespaceExport(clause)) {
        names.add(clause.name.text);
      } else {
        for (const element of clause.elements) names.add(element.name.text);
      }
    } else if (ts.isExportAssignment(statement)) {
      names.add('default');
    } else if (isExported(statement)) {
      for (const name of declaredNames(statement, file)) names.add(name);
    }
  }
  return names;
}

/** Each entry point's specifier with the names its source index exports. */
export function entryExports(root: string = ROOT): Map<string, Set<string>> {
  return new Map([...entryPoints(root)].map(([specifier, source]) => [specifier, exportedNames(resolve(root, source))]));
}
