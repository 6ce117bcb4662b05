/**
 * One top-level declaration of an emitted `.d.ts` as the API report shows it: `export` and no
 * `declare`, no doc comments (a `// @deprecated` line where the doc comment deprecates a member),
 * and a class's public and protected members only (no `private`, no `#private`; a private constructor stays).
 */
import ts from 'typescript';

const printer = ts.createPrinter({ newLine: ts.NewLineKind.LineFeed });

const hasTag = (node: ts.Node, name: string): boolean => ts.getJSDocTags(node).some((tag) => tag.tagName.text === name);

/**
 * What a user of the class cannot reach: `private x` and the `#private` brand. A `private
 * constructor()` stays: that a class cannot be constructed is part of what a user sees.
 */
const isPrivate = (member: ts.ClassElement): boolean =>
  (member.name !== undefined && ts.isPrivateIdentifier(member.name)) ||
  (!ts.isConstructorDeclaration(member) &&
    ts.canHaveModifiers(member) &&
    (ts.getModifiers(member) ?? []).some((m) => m.kind === ts.SyntaxKind.PrivateKeyword));

/** The statement's modifiers without `declare` or `default`, and with `export` first if it is `exported`. */
function exportModifiers(statement: ts.Statement, exported: boolean): ts.ModifierLike[] {
  const kept = (ts.canHaveModifiers(statement) ? (ts.getModifiers(statement) ?? []) : []).filter(
    (m) => m.kind !== ts.SyntaxKind.DeclareKeyword && m.kind !== ts.SyntaxKind.DefaultKeyword && m.kind !== ts.SyntaxKind.ExportKeyword,
  );
  return exported ? [ts.factory.createModifier(ts.SyntaxKind.ExportKeyword), ...kept] : kept;
}

function withModifiers(statement: ts.Statement, modifiers: ts.ModifierLike[]): ts.Statement {
  const f = ts.factory;
  if (ts.isClassDeclaration(statement)) {
    const members = statement.members.filter((member) => !isPrivate(member));
    return f.updateClassDeclaration(statement, modifiers, statement.name, statement.typeParameters, statement.heritageClauses, members);
  }
  if (ts.isInterfaceDeclaration(statement))
    return f.updateInterfaceDeclaration(
      statement,
      modifiers,
      statement.name,
      statement.typeParameters,
      statement.heritageClauses,
      statement.members,
    );
  if (ts.isTypeAliasDeclaration(statement))
    return f.updateTypeAliasDeclaration(statement, modifiers, statement.name, statement.typeParameters, statement.type);
  if (ts.isFunctionDeclaration(statement))
    return f.updateFunctionDeclaration(
      statement,
      modifiers,
      statement.asteriskToken,
      statement.name,
      statement.typeParameters,
      statement.parameters,
      statement.type,
      undefined,
    );
  if (ts.isEnumDeclaration(statement)) return f.updateEnumDeclaration(statement, modifiers, statement.name, statement.members);
  if (ts.isModuleDeclaration(statement)) return f.updateModuleDeclaration(statement, modifiers, statement.name, statement.body);
  if (ts.isVariableStatement(statement)) return f.updateVariableStatement(statement, modifiers, statement.declarationList);
  throw new Error(`the API report does not print a ${ts.SyntaxKind[statement.kind]}`);
}

/** Leaves the source's comments out of everything under `node`, marking deprecated members with a line of their own. */
function quiet(node: ts.Node): void {
  ts.setEmitFlags(node, ts.EmitFlags.NoComments);
  // The parsed declarations are shared by every report that prints them: a member is marked once.
  const member = ts.isClassElement(node) || ts.isTypeElement(node) || ts.isEnumMember(node);
  if (member && hasTag(node, 'deprecated') && ts.getSyntheticLeadingComments(node) === undefined) {
    ts.addSyntheticLeadingComment(node, ts.SyntaxKind.SingleLineCommentTrivia, ' @deprecated', true);
  }
  ts.forEachChild(node, quiet);
}

/** `statement` (a top-level declaration of `declarations`) printed for the report, as `export`ed or not. */
export function printDeclaration(statement: ts.Statement, declarations: ts.SourceFile, exported = true): string {
  const printed = withModifiers(statement, exportModifiers(statement, exported));
  ts.forEachChild(printed, quiet);
  ts.setEmitFlags(printed, ts.EmitFlags.NoComments);
  return printer.printNode(ts.EmitHint.Unspecified, printed, declarations);
}
