// Compiles a closure of the repository's TypeScript sources (every file the entries import) into a
// package's dist/, keeping the repository layout below it and rewriting `.ts` imports to `.js`.
import ts from 'typescript';

export interface CompileRequest {
  root: string;
  entries: string[];
  outDir: string;
  /** `.d.ts` beside the JavaScript (libraries); applications ship JavaScript only. */
  declarations: boolean;
  /** Declarations and no JavaScript (the types package). */
  declarationsOnly?: boolean;
}

export class CompileError extends Error {}

export function compile(req: CompileRequest): string[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    rootDir: req.root,
    outDir: req.outDir,
    strict: true,
    resolveJsonModule: true,
    esModuleInterop: true,
    skipLibCheck: true,
    rewriteRelativeImportExtensions: true,
    declaration: req.declarations || req.declarationsOnly === true,
    emitDeclarationOnly: req.declarationsOnly === true,
    // The repository's own `tsc --noEmit` checks these sources; the build only emits them.
    noCheck: true,
    types: ['node'],
    lib: ['lib.es2022.d.ts'],
    newLine: ts.NewLineKind.LineFeed,
  };
  const program = ts.createProgram(req.entries, options);
  const written: string[] = [];
  const result = program.emit(undefined, (fileName, text) => {
    ts.sys.writeFile(fileName, text);
    written.push(fileName);
  });
  const problems = [...program.getOptionsDiagnostics(), ...program.getSyntacticDiagnostics(), ...result.diagnostics];
  if (problems.length) {
    const host: ts.FormatDiagnosticsHost = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => req.root, getNewLine: () => '\n' };
    throw new CompileError(ts.formatDiagnostics(problems, host));
  }
  return written.sort();
}
