// Reads spec/, checks that every file parses and every $ref names a shape of a spec file, and
// builds the Model. Errors are collected (not thrown one by one) so a run reports every problem at once.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseDocument, isNode, type Document } from 'yaml';
import $RefParser, { type FileInfo } from '@apidevtools/json-schema-ref-parser';
import { fastManifests } from '../../runtime/validate/fast-yaml.ts';
import type { Schema } from '../../runtime/schema/types.ts';
import { cellFormatters } from '../../runtime/printers/index.ts';
import { SpecError, formatPath, type SpecProblem } from './spec-error.ts';
import { VERBS } from '../../runtime/api/operation.ts';
import type { FeatureGate, GroupVersions, Model, OperationKind, Parameter, PrinterColumn, Resource, Shape, Subresource, Verb } from './model.ts';

type Json = unknown;
type Path = Array<string | number>;

interface SpecFile {
  file: string; // relative to the repository root
  abs: string;
  src: string;
  /** yaml's document model, with positions: built when a file is read in full, or when a position is first asked for. */
  doc?: Document;
  data: Record<string, Json>;
  /** Offsets where each line starts, for error positions. */
  lineStarts: number[];
}

/** The spec as loaded, with positions kept for error messages. */
export interface LoadedSpec {
  model: Model;
  /** Finds the line of a path in a spec file (for errors found after loading). */
  lineOf(file: string, path: Path): number | undefined;
}

export interface LoadOptions {
  /** The spec folder (default `<root>/spec`); file names in errors stay relative to root. */
  specDir?: string;
  /** Shape files loaded beside the spec's own, by absolute path (a user's spec names the platform's meta shapes). */
  libraryFiles?: string[];
}

export async function loadSpec(root: string, options: LoadOptions = {}): Promise<LoadedSpec> {
  const specDir = options.specDir ?? join(root, 'spec');
  const problems: SpecProblem[] = [];
  const files = readSpecFiles(root, specDir, problems, options.libraryFiles ?? []);
  const lineOf = (file: string, path: Path): number | undefined => {
    const f = files.find((x) => x.file === file);
    return f ? lineIn(f, path) : undefined;
  };
  const problem = (f: SpecFile, path: Path, message: string): void => {
    problems.push({ file: f.file, path: formatPath(path), message, line: lineIn(f, path) });
  };
  if (problems.length) throw new SpecError(problems);

  // Shapes: every components.schemas entry of every file, by globally unique name.
  const shapes = new Map<string, Shape>();
  for (const f of files) {
    const schemas = f.data.components && (f.data.components as Record<string, Json>).schemas;
    if (schemas === undefined) continue;
    if (!isRecord(schemas)) {
      problem(f, ['components', 'schemas'], 'must be a map of named schemas');
      continue;
    }
    const pkg = f.data['x-cluster-package'];
    if (typeof pkg !== 'string' || !/^[a-z][a-z0-9-]*(\.[a-z0-9-]+)+$/.test(pkg)) {
      problem(f, ['x-cluster-package'], 'required: the package of this file\'s shapes, e.g. io.cluster.api.core.v1');
      continue;
    }
    for (const [name, schema] of Object.entries(schemas)) {
      const path: Path = ['components', 'schemas', name];
      if (!/^[A-Z][A-Za-z0-9]*$/.test(name)) problem(f, path, 'a shape name is UpperCamelCase');
      const prior = shapes.get(name);
      if (prior) {
        problem(f, path, `shape ${name} is already defined in ${prior.file}`);
        continue;
      }
      if (!isRecord(schema)) {
        problem(f, path, 'a schema must be a map');
        continue;
      }
      shapes.set(name, { name, package: pkg, file: f.file, schema: schema as Schema });
    }
  }

  // Before the rewrite below: ref-parser follows the $refs as written; a file it cannot load ends the run here.
  await checkRefsResolve(root, specDir, files, problems);
  if (problems.length) throw new SpecError(problems);

  // Rewrite every $ref to the canonical `#/components/schemas/<Name>` form.
  for (const f of files) {
    walk(f.data, [], (node, path) => {
      const ref = node.$ref;
      if (typeof ref !== 'string') return;
      const target = refTarget(ref);
      if ('error' in target) problem(f, [...path, '$ref'], target.error);
      else if (!shapes.has(target.name)) problem(f, [...path, '$ref'], `no shape ${target.name} at ${ref}`);
      else node.$ref = `#/components/schemas/${target.name}`;
    });
  }

  if (problems.length) throw new SpecError(problems);

  const api = files.find((f) => f.abs === resolve(specDir, 'api.yaml'));
  if (!api) throw new SpecError([{ file: relative(root, join(specDir, 'api.yaml')), path: '', message: 'missing: the API description file' }]);
  const resources = files
    .filter((f) => f.data['x-cluster-resource'] !== undefined)
    .map((f) => readResource(f, shapes, (path, message) => problem(f, path, message)))
    .filter((r): r is Resource => r !== undefined)
    .sort((a, b) => a.group.localeCompare(b.group) || a.kind.localeCompare(b.kind));

  const model: Model = {
    platform: readPlatform(api, (path, m) => problem(api, path, m)),
    groups: readGroups(api, (path, m) => problem(api, path, m)),
    featureGates: readFeatureGates(api, (path, m) => problem(api, path, m)),
    parameters: readParameters(api, (path, m) => problem(api, path, m)),
    operationParameters: {} as Record<OperationKind, string[]>,
    shapes: new Map([...shapes.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    resources,
  };
  model.operationParameters = readOperationParameters(api, model.parameters, (path, m) => problem(api, path, m));
  if (problems.length) throw new SpecError(problems);
  return { model, lineOf };
}

function readSpecFiles(root: string, specDir: string, problems: SpecProblem[], libraryFiles: string[]): SpecFile[] {
  if (!existsSync(specDir)) throw new SpecError([{ file: relative(root, specDir) || '.', path: '', message: 'the spec folder does not exist' }]);
  const names = ['api.yaml', ...['shapes', 'resources'].flatMap((sub) => {
    const dir = join(specDir, sub);
    return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.yaml')).sort().map((n) => `${sub}/${n}`) : [];
  }), ...libraryFiles];
  const files: SpecFile[] = [];
  // a library file that is one of the spec's own (this repository's spec/ given as --spec) is read once
  const seen = new Set<string>();
  for (const name of names) {
    const abs = resolve(specDir, name);
    if (seen.has(abs)) continue;
    seen.add(abs);
    const file = relative(root, abs);
    if (!existsSync(abs)) {
      problems.push({ file, path: '', message: 'missing' });
      continue;
    }
    const src = readFileSync(abs, 'utf8');
    // The common case, one plain document, is read straight from the syntax tree (fast-yaml.ts, the
    // same values); anything else (anchors, duplicate keys, errors...) by the full parser and its checks.
    const fast = fastManifests(src);
    let doc: Document | undefined;
    let data: Json;
    if (fast?.length === 1 && isRecord(fast[0].value)) data = fast[0].value;
    else {
      doc = parseSpecDocument(src);
      if (doc.errors.length) {
        for (const e of doc.errors) problems.push({ file, path: '', message: `YAML: ${e.message.split('\n')[0]}`, line: e.linePos?.[0]?.line });
        continue;
      }
      data = doc.toJS({ maxAliasCount: 100 }) as Json;
    }
    if (!isRecord(data)) {
      problems.push({ file, path: '', message: 'a spec file must be a YAML map (an OpenAPI 3.0 document)' });
      continue;
    }
    const lineStarts = [0];
    for (let i = 0; i < src.length; i++) if (src[i] === '\n') lineStarts.push(i + 1);
    const f: SpecFile = { file, abs, src, doc, data, lineStarts };
    if (data.openapi !== '3.0.3') problems.push({ file, path: 'openapi', message: 'must be "3.0.3"', line: lineIn(f, ['openapi']) });
    files.push(f);
  }
  return files;
}

/**
 * Lets @apidevtools/json-schema-ref-parser follow every $ref of every spec file, given the files as
 * already parsed above (no second read or parse), and reports each $ref naming a file that is not
 * one of them; the pointers themselves are checked against the shapes (refTarget).
 */
async function checkRefsResolve(root: string, specDir: string, files: SpecFile[], problems: SpecProblem[]): Promise<void> {
  const byAbs = new Map(files.map((f) => [f.abs, f]));
  const fileAt = (url: string): SpecFile | undefined => byAbs.get(resolve(decodeURI(url.replace(/^file:\/\//, ''))));
  const index = { files: files.map((f) => ({ $ref: relative(specDir, f.abs) })) };
  const $refs = await $RefParser.resolve(join(specDir, 'index.json'), index, {
    // a file that cannot be loaded becomes its $ref's value (a ResolverError naming where the $ref is), so every one is reported
    continueOnError: true,
    resolve: {
      http: false,
      file: false,
      spec: {
        order: 1,
        canRead: true,
        read: (file: FileInfo) => {
          if (!fileAt(file.url)) throw new Error('not a spec file');
          return '';
        },
      },
    },
    parse: { spec: { order: 1, canParse: true, parse: (file: FileInfo) => fileAt(file.url)?.data } },
  });
  for (const [url, value] of Object.entries($refs.values())) {
    if (!(value instanceof Error)) continue;
    const e = value as Error & { source?: string; path?: Path | null };
    const f = e.source ? fileAt(e.source) : undefined;
    const path = (e.path ?? []).map((p) => (typeof p === 'string' && /^\d+$/.test(p) ? Number(p) : p));
    problems.push({
      file: f ? f.file : relative(root, specDir),
      path: formatPath([...path, '$ref']),
      message: `${refWritten(f, path) ?? relative(root, url.replace(/^file:\/\//, ''))}: no such spec file`,
      line: f ? lineIn(f, path) : undefined,
    });
  }
}

/** The $ref as written at `path` of a spec file (read before the canonical rewrite). */
function refWritten(f: SpecFile | undefined, path: Path): string | undefined {
  let node: Json | undefined = f?.data;
  for (const key of path) node = Array.isArray(node) ? node[Number(key)] : node !== undefined && isRecord(node) ? node[key] : undefined;
  const ref = node !== undefined && isRecord(node) ? node.$ref : undefined;
  return typeof ref === 'string' ? ref : undefined;
}

const parseSpecDocument = (src: string): Document => parseDocument(src, { prettyErrors: true, uniqueKeys: true });

/** The shape a $ref names (its file was loaded by checkRefsResolve; shape names are global). */
function refTarget(ref: string): { name: string } | { error: string } {
  const pointer = ref.split('#')[1] ?? '';
  const m = /^\/components\/schemas\/([^/]+)$/.exec(pointer);
  if (!m) return { error: `${ref}: a $ref must point at #/components/schemas/<Name>` };
  return { name: m[1] };
}

function readResource(f: SpecFile, shapes: Map<string, Shape>, problem: (path: Path, m: string) => void): Resource | undefined {
  const r = f.data['x-cluster-resource'];
  const at = (k: string): Path => ['x-cluster-resource', k];
  if (!isRecord(r)) {
    problem(['x-cluster-resource'], 'must be a map');
    return undefined;
  }
  const str = (k: string, re: RegExp, hint: string): string => {
    const v = r[k];
    if (typeof v !== 'string' || !re.test(v)) problem(at(k), `required: ${hint}`);
    return typeof v === 'string' ? v : '';
  };
  const list = (k: string, re: RegExp): string[] => {
    const v = r[k] ?? [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || !re.test(x))) {
      problem(at(k), `must be a list of strings matching ${re}`);
      return [];
    }
    return v as string[];
  };
  const oneOf = <T extends string>(k: string, values: readonly T[]): T => {
    const v = r[k];
    if (!values.includes(v as T)) problem(at(k), `must be one of ${values.join(', ')}`);
    return v as T;
  };
  const bool = (k: string): boolean => {
    const v = r[k];
    if (typeof v !== 'boolean') problem(at(k), 'required: true or false');
    return v === true;
  };
  const kind = str('kind', /^[A-Z][A-Za-z0-9]*$/, 'the Kind, UpperCamelCase');
  const lower = /^[a-z][a-z0-9]*$/;
  const dns1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
  const resource: Resource = {
    kind,
    group: typeof r.group === 'string' ? r.group : (problem(at('group'), 'required: the API group ("" for core)'), ''),
    version: str('version', /^v\d+((alpha|beta)\d+)?$/, 'the API version, e.g. v1'),
    listKind: str('listKind', /^[A-Z][A-Za-z0-9]*List$/, 'the list Kind, <Kind>List'),
    plural: str('plural', lower, 'the lowercase plural resource name'),
    singular: str('singular', lower, 'the lowercase singular name'),
    shortNames: list('shortNames', dns1035),
    categories: list('categories', dns1035),
    scope: oneOf('scope', ['Namespaced', 'Cluster'] as const),
    subresources: list('subresources', /^(status|finalize)$/) as Subresource[],
    deleteReturns: oneOf('deleteReturns', ['Status', 'Object'] as const),
    maturity: oneOf('maturity', ['stable', 'beta', 'alpha'] as const),
    generation: bool('generation'),
    updateRequiresResourceVersion: bool('updateRequiresResourceVersion'),
    nameSyntax: oneOf('nameSyntax', ['dns1123Subdomain', 'dns1123Label', 'pathSegment'] as const),
    ...(r.omitVerbs === undefined ? {} : { omitVerbs: readOmitVerbs(r.omitVerbs, (path, m) => problem(['x-cluster-resource', 'omitVerbs', ...path], m)) }),
    fieldSelectors: list('fieldSelectors', /^[a-zA-Z][\w.]*$/),
    printerColumns: readPrinterColumns(r.printerColumns, (path, m) => problem(['x-cluster-resource', 'printerColumns', ...path], m)),
    documented: isRecord(r.documented) ? (r.documented as Resource['documented']) : undefined,
    file: f.file,
    // A kind served in several versions names each version's schema (`shape: WidgetV1alpha1`); shape names are global.
    shape: r.shape === undefined ? kind : str('shape', /^[A-Z][A-Za-z0-9]*$/, 'the schema of this version, UpperCamelCase'),
  };
  const shapeKey = r.shape === undefined ? 'kind' : 'shape';
  if (kind && !shapes.has(resource.shape)) problem(at(shapeKey), `no schema components.schemas.${resource.shape} in this file`);
  else if (kind && shapes.get(resource.shape)!.file !== f.file) problem(at(shapeKey), `the schema ${resource.shape} must be defined in this file`);
  if (resource.listKind && resource.listKind !== `${kind}List`) problem(at('listKind'), `must be ${kind}List`);
  const finalizeAt = resource.subresources.indexOf('finalize');
  if (finalizeAt >= 0 && shapes.has(resource.shape) && !hasSpecFinalizers(shapes, resource.shape)) {
    problem([...at('subresources'), finalizeAt], 'finalize needs spec.finalizers, a list of strings, in the kind\'s schema (it is all the subresource writes)');
  }
  return resource;
}

/**
 * `omitVerbs`: verbs of the derived operations the resource does not serve, as upstream's REST
 * storage of the kind leaves an interface out. Patch needs get and update (upstream's Patcher is both).
 */
function readOmitVerbs(v: Json, problem: (path: Path, m: string) => void): Verb[] {
  if (!Array.isArray(v)) {
    problem([], `must be a list of verbs: ${VERBS.join(', ')}`);
    return [];
  }
  const verbs: Verb[] = [];
  v.forEach((x, i) => {
    if (!VERBS.includes(x as Verb)) problem([i], `unknown verb ${JSON.stringify(x)}; one of ${VERBS.join(', ')}`);
    else if (verbs.includes(x as Verb)) problem([i], `${x} is listed twice`);
    else verbs.push(x as Verb);
  });
  if (!verbs.includes('patch')) {
    for (const needed of ['get', 'update'] as const) {
      if (verbs.includes(needed)) problem([v.indexOf(needed)], `${needed} cannot be omitted while patch is served (a patch reads and updates the object)`);
    }
  }
  return verbs;
}

/** Whether a kind's schema has spec.finalizers as a list of strings (through the `$ref`s, already canonical). */
function hasSpecFinalizers(shapes: Map<string, Shape>, shape: string): boolean {
  const resolve = (s: Schema | undefined): Schema | undefined => {
    const ref = s?.$ref;
    return typeof ref === 'string' ? shapes.get(ref.replace('#/components/schemas/', ''))?.schema : s;
  };
  const spec = resolve(shapes.get(shape)?.schema.properties?.spec);
  const finalizers = resolve(spec?.properties?.finalizers);
  return finalizers?.type === 'array' && resolve(finalizers.items)?.type === 'string';
}

function readPrinterColumns(v: Json, problem: (path: Path, m: string) => void): PrinterColumn[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) {
    problem([], 'must be a list');
    return [];
  }
  return v.flatMap((c, i) => {
    if (!isRecord(c) || typeof c.name !== 'string' || typeof c.type !== 'string' || typeof c.jsonPath !== 'string') {
      problem([i], 'a column needs name, type and jsonPath');
      return [];
    }
    if (!String(c.jsonPath).startsWith('.')) problem([i, 'jsonPath'], 'a simple JSON path starting with "."');
    if (c.formatter !== undefined && !(typeof c.formatter === 'string' && Object.hasOwn(cellFormatters, c.formatter))) problem([i, 'formatter'], `unknown formatter; one of ${Object.keys(cellFormatters).join(', ')}`);
    return [{
      name: c.name,
      type: c.type,
      jsonPath: c.jsonPath,
      description: typeof c.description === 'string' ? c.description : '',
      ...(typeof c.format === 'string' ? { format: c.format } : {}),
      ...(typeof c.priority === 'number' ? { priority: c.priority } : {}),
      ...(Array.isArray(c.count) ? { count: c.count as string[] } : {}),
      ...(typeof c.formatter === 'string' ? { formatter: c.formatter } : {}),
      ...(['string', 'number', 'boolean'].includes(typeof c.whenAbsent) ? { whenAbsent: c.whenAbsent as string | number | boolean } : {}),
    }];
  });
}

function readPlatform(api: SpecFile, problem: (path: Path, m: string) => void): Model['platform'] {
  const p = api.data['x-cluster-platform'];
  if (!isRecord(p) || typeof p.major !== 'string' || typeof p.minor !== 'string' || typeof p.gitVersion !== 'string') {
    problem(['x-cluster-platform'], 'required: major, minor and gitVersion strings');
    return { major: '', minor: '', gitVersion: '' };
  }
  return { major: p.major, minor: p.minor, gitVersion: p.gitVersion };
}

function readGroups(api: SpecFile, problem: (path: Path, m: string) => void): GroupVersions[] {
  const g = api.data['x-cluster-groups'];
  if (!Array.isArray(g)) {
    problem(['x-cluster-groups'], 'required: a list of {group, versions}');
    return [];
  }
  return g.flatMap((x, i) => {
    if (!isRecord(x) || typeof x.group !== 'string' || !Array.isArray(x.versions)) {
      problem(['x-cluster-groups', i], 'needs group (string) and versions (list)');
      return [];
    }
    return [{ group: x.group, versions: x.versions.map(String) }];
  });
}

function readFeatureGates(api: SpecFile, problem: (path: Path, m: string) => void): FeatureGate[] {
  const g = api.data['x-cluster-feature-gates'];
  if (!Array.isArray(g)) {
    problem(['x-cluster-feature-gates'], 'required: a list of {name, stage, default, source}');
    return [];
  }
  return g.flatMap((x, i) => {
    if (!isRecord(x) || typeof x.name !== 'string' || typeof x.default !== 'boolean' || !['alpha', 'beta', 'stable', 'deprecated'].includes(String(x.stage))) {
      problem(['x-cluster-feature-gates', i], 'needs name, stage (alpha|beta|stable|deprecated) and default (bool)');
      return [];
    }
    return [{ name: x.name, stage: x.stage as FeatureGate['stage'], default: x.default, source: String(x.source ?? '') }];
  });
}

function readParameters(api: SpecFile, problem: (path: Path, m: string) => void): Record<string, Parameter> {
  const comps = api.data.components;
  const params = isRecord(comps) ? comps.parameters : undefined;
  if (!isRecord(params)) {
    problem(['components', 'parameters'], 'required: the shared operation parameters');
    return {};
  }
  for (const [k, p] of Object.entries(params)) {
    if (!isRecord(p) || p.name !== k || (p.in !== 'path' && p.in !== 'query') || !isRecord(p.schema)) {
      problem(['components', 'parameters', k], 'needs name (equal to its key), in (path|query) and schema');
    }
  }
  return params as Record<string, Parameter>;
}

function readOperationParameters(api: SpecFile, params: Record<string, Parameter>, problem: (path: Path, m: string) => void): Record<OperationKind, string[]> {
  const kinds: OperationKind[] = ['get', 'list', 'create', 'update', 'patch', 'delete', 'deletecollection'];
  const op = api.data['x-cluster-operation-parameters'];
  const out = {} as Record<OperationKind, string[]>;
  for (const k of kinds) {
    const v = isRecord(op) ? op[k] : undefined;
    if (!Array.isArray(v)) {
      problem(['x-cluster-operation-parameters', k], 'required: the parameter names of this operation');
      out[k] = [];
      continue;
    }
    v.forEach((name, i) => {
      if (!params[String(name)]) problem(['x-cluster-operation-parameters', k, i], `unknown parameter ${String(name)}`);
    });
    out[k] = v.map(String);
  }
  return out;
}

/** Calls `visit` on every map node of a JSON tree with its path. */
export function walk(node: Json, path: Path, visit: (node: Record<string, Json>, path: Path) => void): void {
  if (Array.isArray(node)) node.forEach((x, i) => walk(x, [...path, i], visit));
  else if (isRecord(node)) {
    visit(node, path);
    for (const [k, v] of Object.entries(node)) walk(v, [...path, k], visit);
  }
}

export function isRecord(v: Json): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function lineIn(f: SpecFile, path: Path): number | undefined {
  f.doc ??= parseSpecDocument(f.src);
  for (let n = path.length; n >= 0; n--) {
    const node = f.doc.getIn(path.slice(0, n), true);
    if (isNode(node) && node.range) return lineFromOffset(f.lineStarts, node.range[0]);
  }
  return undefined;
}

function lineFromOffset(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}
