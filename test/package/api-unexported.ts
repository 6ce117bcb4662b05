/**
 * The declarations of the package that the exported ones name but no entry point exports (what
 * api-extractor calls forgotten exports): `HandlerBase` of `interface ClaimHandler extends
 * HandlerBase`, the options type of an exported function's parameter. A user meets their members
 * all the same, so a change to them is a change to the surface: the API report prints them too.
 */
import { isAbsolute } from 'node:path';
import ts from 'typescript';
import { byName, type DeclarationRef, keyOf, statementsNamed } from './api-declarations.js';

type DeclarationsOf = (source: ts.SourceFile) => ts.SourceFile;

/** A name a declaration's types use, and the module of an inline `import("./m.js").Name`. */
interface Reference {
  readonly name: string;
  readonly module?: string;
}

const leftmost = (name: ts.EntityName | ts.Expression): string | undefined =>
  ts.isIdentifier(name)
    ? name.text
    : ts.isQualifiedName(name)
      ? leftmost(name.left)
      : ts.isPropertyAccessExpression(name)
        ? leftmost(name.expression)
        : undefined;

/** The names the types in `node` use: `Foo` of `x: Foo<T>`, `Base` of `extends Base`, `a` of `typeof a`, `Y` of `import("./m.js").Y`. */
function references(node: ts.Node, found: Reference[] = []): Reference[] {
  let name: string | undefined;
  let module: string | undefined;
  if (ts.isTypeReferenceNode(node)) name = leftmost(node.typeName);
  else if (ts.isExpressionWithTypeArguments(node)) name = leftmost(node.expression);
  else if (ts.isTypeQueryNode(node)) name = leftmost(node.exprName);
  else if (ts.isImportTypeNode(node) && node.qualifier !== undefined && ts.isLiteralTypeNode(node.argument)) {
    const literal = node.argument.literal;
    if (ts.isStringLiteral(literal)) [name, module] = [leftmost(node.qualifier), literal.text];
  }
  if (name !== undefined) found.push(module === undefined ? { name } : { name, module });
  ts.forEachChild(node, (child) => void references(child, found));
  return found;
}

/** Finds where a name a declaration uses is declared in the package (not a dependency, a global or a type parameter). */
class Resolver {
  readonly #modules = new Map<string, ts.SourceFile | undefined>();

  constructor(
    private readonly program: ts.Program,
    private readonly declarationsOf: DeclarationsOf,
  ) {}

  /** The package's source file a relative specifier of `from` names; none for a dependency's. */
  module(from: ts.SourceFile, specifier: string): ts.SourceFile | undefined {
    if (!specifier.startsWith('.') && !isAbsolute(specifier)) return undefined;
    const key = `${from.fileName}\n${specifier}`;
    if (!this.#modules.has(key)) {
      const resolved = ts.resolveModuleName(specifier, from.fileName, this.program.getCompilerOptions(), ts.sys).resolvedModule;
      const file =
        resolved === undefined || resolved.isExternalLibraryImport ? undefined : this.program.getSourceFile(resolved.resolvedFileName);
      this.#modules.set(key, file);
    }
    return this.#modules.get(key);
  }

  /** The declaration `name` in `source`'s declarations stands for: its own, or what an import or re-export brings. */
  resolve(source: ts.SourceFile, { name, module }: Reference, depth = 0): DeclarationRef | undefined {
    if (module !== undefined) {
      const target = this.module(source, module);
      return target === undefined ? undefined : this.resolve(target, { name }, depth + 1);
    }
    const declarations = this.declarationsOf(source);
    if (statementsNamed(declarations, name).length > 0) return { source, name };
    if (depth > 16) return undefined;
    for (const statement of declarations.statements) {
      const element = this.#binding(statement, name);
      if (element === undefined) continue;
      const specifier = (statement as ts.ImportDeclaration | ts.ExportDeclaration).moduleSpecifier as ts.StringLiteral;
      const target = this.module(source, specifier.text);
      return target === undefined ? undefined : this.resolve(target, { name: (element.propertyName ?? element.name).text }, depth + 1);
    }
    return undefined;
  }

  /** The `{ a as name }` of an `import { … } from` or `export { … } from` that binds `name`. */
  #binding(statement: ts.Statement, name: string): ts.ImportSpecifier | ts.ExportSpecifier | undefined {
    if (ts.isImportDeclaration(statement)) {
      const bindings = statement.importClause?.namedBindings;
      return bindings !== undefined && ts.isNamedImports(bindings) ? bindings.elements.find((e) => e.name.text === name) : undefined;
    }
    if (ts.isExportDeclaration(statement) && statement.moduleSpecifier !== undefined) {
      const clause = statement.exportClause;
      return clause !== undefined && ts.isNamedExports(clause) ? clause.elements.find((e) => e.name.text === name) : undefined;
    }
    return undefined;
  }
}

/** The package's declarations an entry point's exported ones name, beyond those it exports itself. */
export interface NamedDeclarations {
  /** Those no entry point exports (`isPublic` does not take them): the report prints them. */
  readonly unexported: readonly DeclarationRef[];
  /** Those some entry point exports (`isPublic` takes them), whichever, sorted: not followed further. */
  readonly exportedSomewhere: readonly DeclarationRef[];
}

const bySource = (a: DeclarationRef, b: DeclarationRef): number => byName(a.name, b.name) || byName(a.source.fileName, b.source.fileName);

/**
 * Every declaration of the package that `exported` (the entry point's declarations) name, directly
 * or through another such one that `isPublic` (exported by some entry point) does not take; those
 * it takes are listed apart and not followed (their own report shows what they name).
 */
export function unexportedDeclarations(
  program: ts.Program,
  declarationsOf: DeclarationsOf,
  exported: readonly DeclarationRef[],
  isPublic: (ref: DeclarationRef) => boolean,
): NamedDeclarations {
  const resolver = new Resolver(program, declarationsOf);
  const found = new Map<string, DeclarationRef>();
  const somewhere = new Map<string, DeclarationRef>();
  const queue = [...exported];
  for (let ref = queue.shift(); ref !== undefined; ref = queue.shift()) {
    for (const statement of statementsNamed(declarationsOf(ref.source), ref.name)) {
      for (const reference of references(statement)) {
        const target = resolver.resolve(ref.source, reference);
        if (target === undefined || found.has(keyOf(target))) continue;
        if (isPublic(target)) {
          somewhere.set(keyOf(target), target);
          continue;
        }
        found.set(keyOf(target), target);
        queue.push(target);
      }
    }
  }
  return { unexported: [...found.values()].sort(bySource), exportedSomewhere: [...somewhere.values()].sort(bySource) };
}
