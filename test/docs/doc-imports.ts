/**
 * What a page of the docs tells a reader to import from the package: the imports of its
 * TypeScript and JavaScript code blocks, and the prose that names a symbol with its entry point
 * ("`checkCatalog(published, config)` from `dynamodb-outbox/catalog`").
 */
import ts from 'typescript';

/** One name (or, with `name` undefined, only the entry point) a page says to import. */
export interface DocImport {
  /** Line of the page (1-based) the import or mention is on. */
  readonly line: number;
  /** The specifier as written: `dynamodb-outbox`, `dynamodb-outbox/consumer`, … */
  readonly specifier: string;
  /** The name imported from it (`default` for a default import); undefined for `import * as x` or a bare `import('…')`. */
  readonly name: string | undefined;
}

const PACKAGE = 'dynamodb-outbox';
const CODE_LANGUAGES = new Set(['ts', 'typescript', 'tsx', 'js', 'javascript', 'jsx', 'mjs', 'cjs']);

const isPackage = (specifier: string): boolean => specifier === PACKAGE || specifier.startsWith(`${PACKAGE}/`);

/** A fenced code block: its language and its first line's number (1-based). */
interface CodeBlock {
  readonly language: string;
  readonly firstLine: number;
  readonly text: string;
}

/** The page split into its fenced code blocks and the prose around them (code lines blanked, so line numbers hold). */
function splitPage(page: string): { readonly blocks: CodeBlock[]; readonly prose: string } {
  const lines = page.split('\n');
  const blocks: CodeBlock[] = [];
  const prose: string[] = [];
  let open: { fence: string; language: string; firstLine: number; lines: string[] } | undefined;
  lines.forEach((line, index) => {
    const fence = /^\s*(`{3,}|~{3,})\s*([\w-]*)/.exec(line);
    if (open === undefined && fence !== null) {
      open = { fence: fence[1] as string, language: (fence[2] as string).toLowerCase(), firstLine: index + 2, lines: [] };
      prose.push('');
    } else if (open !== undefined && line.trim().startsWith(open.fence)) {
      blocks.push({ language: open.language, firstLine: open.firstLine, text: open.lines.join('\n') });
      open = undefined;
      prose.push('');
    } else if (open !== undefined) {
      open.lines.push(line);
      prose.push('');
    } else {
      prose.push(line);
    }
  });
  return { blocks, prose: prose.join('\n') };
}

/** The package imports of one code block: import and re-export declarations, `import('…')` calls and `import('…').Type` types. */
function codeImports(block: CodeBlock): DocImport[] {
  const source = ts.createSourceFile('block.ts', block.text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: DocImport[] = [];
  const add = (node: ts.Node, specifier: string, name: string | undefined): void => {
    const line = block.firstLine + source.getLineAndCharacterOfPosition(node.getStart(source)).line;
    found.push({ line, specifier, name });
  };
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined) {
      const specifier = ts.isStringLiteral(node.moduleSpecifier) ? node.moduleSpecifier.text : '';
      if (isPackage(specifier)) for (const [at, name] of declarationNames(node)) add(at, specifier, name);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument !== undefined && ts.isStringLiteral(argument) && isPackage(argument.text)) add(node, argument.text, undefined);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      const specifier = node.argument.literal.text;
      if (isPackage(specifier)) add(node, specifier, node.qualifier === undefined ? undefined : firstName(node.qualifier));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The names an import or re-export declaration takes, each with its node (for its line): the
 * default import as `default`, each named one by the name the module exports it under
 * (`eventHandler` of `eventHandler as handle`); undefined alone for `import * as x`, `export *`
 * and a bare `import '…'`, which name no export.
 */
function declarationNames(node: ts.ImportDeclaration | ts.ExportDeclaration): [ts.Node, string | undefined][] {
  const clause = ts.isImportDeclaration(node) ? node.importClause : undefined;
  const names: [ts.Node, string | undefined][] = clause?.name === undefined ? [] : [[node, 'default']];
  const bindings = ts.isImportDeclaration(node) ? clause?.namedBindings : node.exportClause;
  if (bindings !== undefined && (ts.isNamedImports(bindings) || ts.isNamedExports(bindings))) {
    for (const element of bindings.elements) names.push([element, (element.propertyName ?? element.name).text]);
  }
  return names.length === 0 ? [[node, undefined]] : names;
}

const firstName = (name: ts.EntityName): string => (ts.isIdentifier(name) ? name.text : firstName(name.left));

/**
 * Prose naming a symbol with its entry point: "`name`" or "`name(args)`" (or "`NAME.member`"),
 * then "from", "in", "is exported from/by", "exported by", "(exported from/by" or "(", then the entry point in
 * backticks. A file path between them in parentheses ("`OutboxProps` (`infra/outbox-props.ts`,
 * exported by `dynamodb-outbox/cdk`)") and "construct" after the name are passed over.
 */
const PROSE_MENTION =
  /`([A-Za-z_$][\w$]*)(?:\.[\w$]+)*(?:\([^`]*\))?`(?:\s+construct)?(?:\s+\(`[^`]*`)?,?\s+(?:from|in|is\s+exported\s+from|is\s+exported\s+by|exported\s+by|\(exported\s+(?:from|by)|\()\s*`(dynamodb-outbox(?:\/[\w-]+)?)`/g;

function proseImports(prose: string): DocImport[] {
  return [...prose.matchAll(PROSE_MENTION)].map((match) => ({
    line: prose.slice(0, match.index).split('\n').length,
    specifier: match[2] as string,
    name: match[1] as string,
  }));
}

/** Every import from the package a markdown page shows, in code blocks and in prose. */
export function docImports(page: string): DocImport[] {
  const { blocks, prose } = splitPage(page);
  const code = blocks.filter((block) => CODE_LANGUAGES.has(block.language)).flatMap(codeImports);
  return [...code, ...proseImports(prose)].sort((a, b) => a.line - b.line);
}
