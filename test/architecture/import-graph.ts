// The import graph of runtime/ and generators/, and the rules it must keep: runtime/ imports
// nothing outside runtime/ (out/ is generated from it, so an import of out/ runs back up), the
// folders of runtime/ import only their own layer or lower ones, and the generators never import
// the HTTP layer. Pure functions over a list of edges, so that the rules can be tested on planted
// graphs as well as run on the repository (import-graph.test.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** One import: `from` (repository-relative, `/`-separated) imports `to` at `line`. */
export interface ImportEdge {
  from: string;
  line: number;
  to: string;
}

const posix = (p: string): string => p.split(sep).join('/');

/** The TypeScript modules under `dir` (repository-relative), tests and declaration files left out. */
export function sourceFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'))
    .map((f) => posix(join(dir, f)))
    .sort();
}

/**
 * Every relative import of a file: static imports and re-exports (`import type` included), side-effect
 * imports, `import('…')` calls and `typeof import('…')` types. Comments and strings are not imports.
 * Package imports (`node:fs`, `yaml`) are not edges of the repository's graph.
 */
export function importsOf(root: string, file: string): ImportEdge[] {
  const text = readFileSync(join(root, file), 'utf8');
  const lineStarts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const lineOf = (pos: number): number => {
    let line = 0;
    while (line + 1 < lineStarts.length && lineStarts[line + 1] <= pos) line++;
    return line + 1;
  };
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.filter((i) => i.fileName.startsWith('.'))
    .map((i) => ({
      from: file,
      line: lineOf(i.pos),
      to: posix(relative(root, resolve(root, dirname(file), i.fileName))),
    }));
}

/**
 * The test support modules among `files`: named for tests (`test-support.ts`, `webhook-fixture.ts`,
 * `conformance-harness.ts`, `testutil.ts`) and imported by no other module of `files` that is not one
 * itself. They are test code, as the `*.test.ts` files that use them, so the rules do not apply to them;
 * a module a production module imports is never one, whatever its name.
 */
export function testSupportModules(files: readonly string[], edges: readonly ImportEdge[]): Set<string> {
  const support = new Set(files.filter((f) => /test|fixture|harness/i.test(f.slice(f.lastIndexOf('/') + 1))));
  for (let changed = true; changed; ) {
    changed = false;
    for (const e of edges) {
      if (support.has(e.to) && !support.has(e.from)) {
        support.delete(e.to);
        changed = true;
      }
    }
  }
  return support;
}

/** `runtime/registry/strategies/secret.ts` → `registry`; a file directly under runtime/ is its own folder (`cli.ts` → `cli`). */
export function runtimeFolder(path: string): string | undefined {
  const parts = path.split('/');
  if (parts[0] !== 'runtime' || parts.length < 2) return undefined;
  return parts.length === 2 ? parts[1].replace(/\.ts$/, '') : parts[1];
}

/** The layer index of each folder of runtime/ (0 lowest) from a table of layers, low to high. */
export function layerIndex(layers: readonly (readonly string[])[]): Map<string, number> {
  const index = new Map<string, number>();
  layers.forEach((folders, i) => {
    for (const f of folders) {
      if (index.has(f)) throw new Error(`runtime/${f} is in two layers`);
      index.set(f, i);
    }
  });
  return index;
}

const where = (e: ImportEdge): string => `${e.from}:${e.line} imports ${e.to}`;

/** Edges from runtime/ to anything outside it (out/, generators/, test/). */
export function runtimeLeaks(edges: readonly ImportEdge[]): string[] {
  return edges.filter((e) => e.from.startsWith('runtime/') && !e.to.startsWith('runtime/')).map((e) => `${where(e)}: runtime/ imports only runtime/`);
}

/**
 * Edges from a folder of runtime/ to a folder of a higher layer; every folder (of `folders` or of an
 * edge) the table does not place, so that a new folder gets a layer; every folder of the table that
 * `folders` does not have, so that the table stays the real one.
 */
export function layerViolations(edges: readonly ImportEdge[], layers: readonly (readonly string[])[], folders: readonly string[]): string[] {
  const index = layerIndex(layers);
  const problems: string[] = [];
  const unplaced = new Set(folders.filter((f) => !index.has(f)));
  for (const e of edges) {
    const from = runtimeFolder(e.from);
    const to = runtimeFolder(e.to);
    if (from === undefined || to === undefined || from === to) continue;
    const a = index.get(from);
    const b = index.get(to);
    if (a === undefined) unplaced.add(from);
    if (b === undefined) unplaced.add(to);
    if (a !== undefined && b !== undefined && b > a) problems.push(`${where(e)}: ${from} (layer ${a}) must not import ${to} (layer ${b})`);
  }
  for (const f of [...unplaced].sort()) problems.push(`runtime/${f} has no layer in the table`);
  for (const f of [...index.keys()].filter((k) => !folders.includes(k)).sort()) problems.push(`runtime/${f} is in the table but not in runtime/`);
  return problems;
}

/**
 * Pairs of folders of runtime/ that import each other (allowed within a layer by the table, but a
 * cycle all the same), except the pairs of `allowed` (`cel|schema`). Each pair names one edge each way.
 */
export function mutualImports(edges: readonly ImportEdge[], allowed: readonly string[]): string[] {
  const first = new Map<string, ImportEdge>();
  for (const e of edges) {
    const from = runtimeFolder(e.from);
    const to = runtimeFolder(e.to);
    if (from !== undefined && to !== undefined && from !== to && !first.has(`${from}|${to}`)) first.set(`${from}|${to}`, e);
  }
  const problems: string[] = [];
  for (const [key, e] of first) {
    const [a, b] = key.split('|');
    const back = first.get(`${b}|${a}`);
    if (a < b && back && !allowed.includes(key)) problems.push(`${a} and ${b} import each other: ${where(e)}, ${where(back)}`);
  }
  return problems.sort();
}

/** Folders under runtime/ with a module, whether or not anything imports them. */
export function runtimeFolders(files: readonly string[]): string[] {
  return [...new Set(files.map(runtimeFolder).filter((f): f is string => f !== undefined))].sort();
}

/** Edges from generators/ into `forbidden` (a folder prefix such as `runtime/http/`). */
export function generatorImportsOf(edges: readonly ImportEdge[], forbidden: string): string[] {
  return edges.filter((e) => e.from.startsWith('generators/') && e.to.startsWith(forbidden)).map((e) => `${where(e)}: generators/ must not import ${forbidden}`);
}
