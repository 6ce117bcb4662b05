/**
 * Reading a declaration in the `.d.ts` tsc emits: the statements that declare a name, what kind of
 * declaration each is, whether it is deprecated; and the order the API report lists names in.
 */
import ts from 'typescript';

/** A declaration by the source file of the program that declares it and its name there. */
export interface DeclarationRef {
  readonly source: ts.SourceFile;
  readonly name: string;
}

export const keyOf = (ref: DeclarationRef): string => `${ref.source.fileName}#${ref.name}`;

/** The top-level statements of a `.d.ts` that declare `name` (overloads and merged declarations give several). */
export function statementsNamed(declarations: ts.SourceFile, name: string): ts.Statement[] {
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
export function kindOf(statement: ts.Statement): string {
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
export const isDeprecated = (statement: ts.Statement): boolean =>
  ts
    .getJSDocTags(ts.isVariableStatement(statement) ? (statement.declarationList.declarations[0] ?? statement) : statement)
    .some((tag) => tag.tagName.text === 'deprecated');

/** The package a declaration file under node_modules belongs to (`@scope/name` or `name`). */
export const packageOf = (file: string): string => {
  const [first = '', second = ''] = file.slice(file.lastIndexOf('/node_modules/') + '/node_modules/'.length).split('/');
  return first.startsWith('@') ? `${first}/${second}` : first;
};

/** Names in the order a reader looks them up: case aside, then as written (so the order is the same everywhere). */
export const byName = (a: string, b: string): number => {
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
};
