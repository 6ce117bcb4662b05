/**
 * The TypeScript program the API report reads: the package build's options (tsconfig.build.json),
 * rooted at the entry points' sources, and the `.d.ts` tsc emits for a source file of it, as the
 * build would write it, emitted on demand in memory.
 *
 * Two things keep it to a few seconds rather than some fifteen on 2 loaded cores:
 * - aws-cdk-lib's index re-exports each of its ~250 service modules as a namespace
 *   (`export * as aws_s3 from './aws-s3'`), so importing `Duration` from 'aws-cdk-lib' makes tsc
 *   parse all 43 MB of its declarations. The program reads that one file without those lines
 *   (the same path and module name, so emitted types name 'aws-cdk-lib' as the build does);
 *   the constructs import the service modules by their own paths. An import of such a namespace
 *   from 'aws-cdk-lib' would then resolve to nothing, so `checkCdkImports` refuses one.
 * - Declaration emit type-checks the whole file first unless asked not to (tsc's own
 *   `forceDtsEmit`, which tsc's API does not declare: a later TypeScript that drops it is only
 *   slower). The report wants declarations, not diagnostics: `npx tsc --noEmit` checks the code.
 */
import { resolve } from 'node:path';
import ts from 'typescript';

const CDK = 'aws-cdk-lib';
const NAMESPACE_REEXPORT = /^export \* as \w+ from '[^']+';$/;

/** The build's compiler options, emitting declarations only. */
function buildOptions(root: string): ts.CompilerOptions {
  const configFile = resolve(root, 'tsconfig.build.json');
  const { config, error } = ts.readConfigFile(configFile, ts.sys.readFile);
  if (error !== undefined) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root, undefined, configFile);
  return { ...options, noEmit: false, declaration: true, emitDeclarationOnly: true, declarationMap: false, sourceMap: false };
}

/** The program over `sources` (relative to `root`), aws-cdk-lib's index read without its namespace re-exports. */
export function declarationProgram(root: string, sources: readonly string[]): ts.Program {
  const options = buildOptions(root);
  const host = ts.createCompilerHost(options);
  const cdkIndex = resolve(root, 'node_modules', CDK, 'index.d.ts');
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, language, onError, create) => {
    if (resolve(fileName) !== cdkIndex) return read(fileName, language, onError, create);
    const text = (ts.sys.readFile(fileName) ?? '')
      .split('\n')
      .filter((line) => !NAMESPACE_REEXPORT.test(line.trim()))
      .join('\n');
    return ts.createSourceFile(fileName, text, language, true);
  };
  const program = ts.createProgram(
    sources.map((source) => resolve(root, source)),
    options,
    host,
  );
  checkCdkImports(program);
  return program;
}

/** Refuses an import from 'aws-cdk-lib' the shortened index does not answer (a service namespace, or the whole module). */
function checkCdkImports(program: ts.Program): void {
  const checker = program.getTypeChecker();
  for (const file of program.getSourceFiles()) {
    if (file.fileName.includes('/node_modules/')) continue;
    for (const statement of file.statements) {
      if (!ts.isImportDeclaration(statement) || (statement.moduleSpecifier as ts.StringLiteral).text !== CDK) continue;
      const bindings = statement.importClause?.namedBindings;
      const names = bindings !== undefined && ts.isNamedImports(bindings) ? bindings.elements : [];
      const unread = names.filter(
        (element) => checker.getAliasedSymbol(checker.getSymbolAtLocation(element.name)!).declarations === undefined,
      );
      if ((bindings !== undefined && !ts.isNamedImports(bindings)) || unread.length > 0) {
        const what =
          unread.length > 0 ? unread.map((element) => (element.propertyName ?? element.name).text).join(', ') : 'the whole module';
        throw new Error(
          `${file.fileName} imports ${what} from '${CDK}', which the API report's program reads without its service namespaces: import it from '${CDK}/<service>'`,
        );
      }
    }
  }
}

/** The `.d.ts` tsc emits for a source file of `program`, emitted once each and parsed (parent nodes set). */
export function declarationsOf(program: ts.Program): (source: ts.SourceFile) => ts.SourceFile {
  const emitted = new Map<string, ts.SourceFile>();
  // emit(…, emitOnlyDtsFiles, customTransformers, forceDtsEmit): the last is tsc's own, undeclared.
  const emit = program.emit as (...args: [ts.SourceFile, ts.WriteFileCallback, undefined, boolean, undefined, boolean]) => ts.EmitResult;
  return (source) => {
    const known = emitted.get(source.fileName);
    if (known !== undefined) return known;
    let text: string | undefined;
    const write: ts.WriteFileCallback = (name, data) => {
      if (name.endsWith('.d.ts')) text = data;
    };
    const { emitSkipped } = emit.call(program, source, write, undefined, true, undefined, true);
    if (emitSkipped || text === undefined) throw new Error(`tsc emitted no declarations for ${source.fileName}`);
    const parsed = ts.createSourceFile(source.fileName.replace(/\.tsx?$/, '.d.ts'), text, ts.ScriptTarget.Latest, true);
    emitted.set(source.fileName, parsed);
    return parsed;
  };
}
