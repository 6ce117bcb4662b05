/**
 * Which names a module exports for types only: `export type { A }`, `export { type A }`,
 * `export type * from`, and what it hands on from another module that exported it so. A class or
 * a const exported this way cannot be used as a value (`new`, a call), which the checker's list of
 * exports does not tell; the API report notes it, since a value turning type-only breaks users.
 */
import ts from 'typescript';

/** The source file a module specifier names, if the program read one. */
function moduleOf(checker: ts.TypeChecker, specifier: ts.Expression | undefined): ts.SourceFile | undefined {
  const declaration = specifier === undefined ? undefined : checker.getSymbolAtLocation(specifier)?.valueDeclaration;
  return declaration !== undefined && ts.isSourceFile(declaration) ? declaration : undefined;
}

/** This file's imports by local name: whether the import is type-only, and the module and name it reads. */
function importsOf(checker: ts.TypeChecker, file: ts.SourceFile): Map<string, { typeOnly: boolean; from?: ts.SourceFile; name: string }> {
  const imports = new Map<string, { typeOnly: boolean; from?: ts.SourceFile; name: string }>();
  for (const statement of file.statements) {
    const clause = ts.isImportDeclaration(statement) ? statement.importClause : undefined;
    if (clause === undefined || !ts.isImportDeclaration(statement)) continue;
    const from = moduleOf(checker, statement.moduleSpecifier);
    const base = from === undefined ? {} : { from };
    if (clause.name !== undefined) imports.set(clause.name.text, { typeOnly: clause.isTypeOnly, ...base, name: 'default' });
    const bindings = clause.namedBindings;
    if (bindings !== undefined && ts.isNamedImports(bindings)) {
      for (const element of bindings.elements) {
        const name = (element.propertyName ?? element.name).text;
        imports.set(element.name.text, { typeOnly: clause.isTypeOnly || element.isTypeOnly, ...base, name });
      }
    }
  }
  return imports;
}

/** The names an `export`ed declaration statement binds. */
function ownExportedNames(statement: ts.Statement): string[] {
  const exported = ts.canHaveModifiers(statement) && (ts.getModifiers(statement) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  if (!exported) return [];
  if (ts.isVariableStatement(statement))
    return statement.declarationList.declarations.flatMap((d) => (ts.isIdentifier(d.name) ? [d.name.text] : []));
  const { name } = statement as ts.Statement & { readonly name?: ts.Node };
  return name !== undefined && ts.isIdentifier(name) ? [name.text] : [];
}

/** The names `file` exports for types only, through any chain of re-exports. */
export function typeOnlyExports(checker: ts.TypeChecker, file: ts.SourceFile, visiting: ReadonlySet<string> = new Set()): Set<string> {
  if (visiting.has(file.fileName)) return new Set();
  const inner = new Set([...visiting, file.fileName]);
  const imports = importsOf(checker, file);
  const explicit = new Map<string, boolean>();
  const starred = new Set<string>();
  for (const statement of file.statements) {
    if (!ts.isExportDeclaration(statement)) {
      // A declaration of its own (`export class A`) wins over a name `export *` would bring.
      for (const name of ownExportedNames(statement)) explicit.set(name, false);
      continue;
    }
    const from = moduleOf(checker, statement.moduleSpecifier);
    const clause = statement.exportClause;
    if (clause === undefined) {
      if (from === undefined) continue;
      const module = checker.getSymbolAtLocation(from);
      const names = statement.isTypeOnly
        ? module === undefined
          ? []
          : checker.getExportsOfModule(module).map((symbol) => symbol.name)
        : typeOnlyExports(checker, from, inner);
      for (const name of names) if (name !== 'default') starred.add(name);
    } else if (ts.isNamespaceExport(clause)) {
      explicit.set(clause.name.text, statement.isTypeOnly);
    } else {
      for (const element of clause.elements) {
        const original = (element.propertyName ?? element.name).text;
        const imported = from === undefined ? imports.get(original) : undefined;
        const handedOn =
          from !== undefined
            ? typeOnlyExports(checker, from, inner).has(original)
            : imported !== undefined &&
              (imported.typeOnly || (imported.from !== undefined && typeOnlyExports(checker, imported.from, inner).has(imported.name)));
        explicit.set(element.name.text, statement.isTypeOnly || element.isTypeOnly || handedOn);
      }
    }
  }
  const result = new Set([...starred].filter((name) => !explicit.has(name)));
  for (const [name, typeOnly] of explicit) if (typeOnly) result.add(name);
  return result;
}
