// The hostile-input cases of test/fixtures/hostile/ (see its README): loading them, turning a case
// and a write path into a request (bodies written as text, so that a 10,000-deep value never passes
// through a recursive encoder here), and checking an answer against the case's expectations.
// Shared by test/e2e/hostile.test.ts and bench/hostile.ts.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { eventually, ROOT, type Response, type TestServer } from './harness.ts';

export const HOSTILE_DIR = join(ROOT, 'test', 'fixtures', 'hostile');

export const WRITE_PATHS = ['create-json', 'create-yaml', 'update', 'patch-json', 'patch-merge', 'patch-strategic', 'apply-yaml', 'apply-json'] as const;
export type WritePath = (typeof WRITE_PATHS)[number];

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

export interface Expectation {
  status?: number | number[];
  messageContains?: string[];
  warningContains?: string[];
  fields?: Record<string, Json>;
  maxResponseMs?: number;
  /**
   * The server main-thread CPU the write may take, in ms (default 100, the issue's bound on
   * blocking the event loop). A case that cannot meet it says why and what was measured.
   */
  cpuBudgetMs?: number;
}

export interface HostileCase {
  name: string;
  description: string;
  target: string;
  paths: WritePath[];
  query: Record<string, string>;
  setup?: JsonObject;
  object?: JsonObject;
  jsonPatch?: string[];
  bodies: Partial<Record<WritePath, Json>>;
  repeat: number;
  expect: Expectation;
  expectByPath: Partial<Record<WritePath, Expectation>>;
}

export interface Target {
  collection: string;
  base: JsonObject;
}

export interface Targets {
  namespace: string;
  crds: JsonObject[];
  targets: Record<string, Target>;
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export function loadTargets(): Targets {
  return parseYaml(readFileSync(join(HOSTILE_DIR, 'targets.yaml'), 'utf8')) as Targets;
}

/** Every case, by file name; a malformed case fails here, naming its file. */
export function loadCases(): HostileCase[] {
  const dir = join(HOSTILE_DIR, 'cases');
  const targets = loadTargets().targets;
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((file) => {
      const raw = parseYaml(readFileSync(join(dir, file), 'utf8')) as Partial<HostileCase> & { paths?: string[] };
      const name = file.replace(/\.yaml$/, '');
      const paths = (raw.paths ?? [...WRITE_PATHS]) as WritePath[];
      const bad = paths.filter((p) => !WRITE_PATHS.includes(p));
      if (bad.length) throw new Error(`${file}: unknown write path(s) ${bad.join(', ')}`);
      if (!raw.target || !targets[raw.target]) throw new Error(`${file}: unknown target ${raw.target}`);
      if (!raw.expect) throw new Error(`${file}: no expect`);
      for (const p of paths) {
        if (raw.bodies?.[p] === undefined && raw.object === undefined) throw new Error(`${file}: ${p} needs an object or a body`);
      }
      return {
        name,
        description: raw.description ?? name,
        target: raw.target,
        paths,
        query: raw.query ?? {},
        setup: raw.setup,
        object: raw.object,
        jsonPatch: raw.jsonPatch,
        bodies: raw.bodies ?? {},
        repeat: raw.repeat ?? 1,
        expect: raw.expect,
        expectByPath: raw.expectByPath ?? {},
      };
    });
}

/** Creates the targets' namespace and CRDs through the server; resolves once every collection answers. */
export async function createTargets(s: TestServer, targets: Targets): Promise<void> {
  const ns = await s.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: targets.namespace } });
  if (ns.status !== 201) throw new Error(`namespace: ${ns.status} ${ns.text}`);
  for (const crd of targets.crds) {
    const r = await s.post('/apis/apiextensions.cluster.io/v1/customresourcedefinitions', crd);
    if (r.status !== 201) throw new Error(`CRD: ${r.status} ${r.text}`);
  }
  // A custom resource's collection answers once its CRD is Established.
  for (const t of Object.values(targets.targets)) await eventually(async () => (await s.get(t.collection)).status === 200, 20_000);
}

// ------------------------------------------------------------------ generators and rendering

/** Replaced per request: the object's name and (update) the setup object's resourceVersion. */
const NAME_TOKEN = 'HOSTILENAMETOKEN';
const RV_TOKEN = 'HOSTILERVTOKEN';
const SPLICE = 'HOSTILESPLICE';

function substitute(v: Json, i: number): Json {
  if (typeof v === 'string') return v.replaceAll('{i}', String(i));
  if (Array.isArray(v)) return v.map((x) => substitute(x, i));
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k.replaceAll('{i}', String(i)), substitute(x, i)]));
  return v;
}

/** `list` and `keys`: generated values; undefined for the generators written as text. */
function expandValue(g: JsonObject): Json | undefined {
  switch (g.$gen) {
    case 'list': {
      const n = Number(g.count);
      const items = Array.from({ length: n }, (_, i) => substitute(g.item, i));
      return g.reverse === true ? items.reverse() : items;
    }
    case 'keys': {
      const out: JsonObject = {};
      for (let i = 0; i < Number(g.count); i++) out[String(g.key).replaceAll('{i}', String(i))] = String(g.value).replaceAll('{i}', String(i));
      return out;
    }
    default:
      return undefined;
  }
}

/** The text of a text generator at a place `enclosing` containers deep in the body. */
function generatorText(g: JsonObject, format: 'json' | 'yaml', enclosing: number, marker: string): string {
  switch (g.$gen) {
    case 'nest': {
      const levels = Number(g.bodyDepth) - enclosing;
      if (levels < 1) throw new Error(`nest: bodyDepth ${String(g.bodyDepth)} is not below the ${enclosing} enclosing levels`);
      // JSON flow text is also YAML: one line, no indentation that grows with the depth.
      return '{"a":'.repeat(levels) + '"x"' + '}'.repeat(levels);
    }
    case 'number':
      return String(g.text);
    case 'duplicateKeys':
      return `{${(g.values as Json[]).map((v) => `${JSON.stringify(g.key)}:${JSON.stringify(v)}`).join(',')}}`;
    case 'aliasBomb': {
      if (format !== 'yaml') throw new Error('aliasBomb: YAML only');
      const width = Number(g.width);
      const levels: string[] = [`&a0 [${Array.from({ length: width }, () => 'lol').join(', ')}]`];
      for (let l = 1; l < Number(g.levels); l++) levels.push(`&a${l} [${Array.from({ length: width }, () => `*a${l - 1}`).join(', ')}]`);
      return `[${levels.join(', ')}]`;
    }
    case 'raw': {
      const text = g[format];
      if (typeof text !== 'string') throw new Error(`raw: no ${format} text`);
      return text.replaceAll('{marker}', marker);
    }
    default:
      throw new Error(`unknown generator ${String(g.$gen)}`);
  }
}

/** Renders a body with generators as JSON or YAML text. */
export function renderBody(body: Json, format: 'json' | 'yaml', marker: string): string {
  const splices: string[] = [];
  const prepare = (v: Json, enclosing: number): Json => {
    if (typeof v === 'string') return v.replaceAll('{marker}', marker);
    if (Array.isArray(v)) return v.map((x) => prepare(x, enclosing + 1));
    if (!isObject(v)) return v;
    if (typeof v.$gen === 'string') {
      const value = expandValue(v);
      if (value !== undefined) return prepare(value, enclosing);
      splices.push(generatorText(v, format, enclosing, marker));
      return `${SPLICE}${splices.length - 1}X`;
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, prepare(x, enclosing + 1)]));
  };
  const prepared = prepare(body, 0);
  let text = format === 'json' ? JSON.stringify(prepared) : stringifyYaml(prepared, { lineWidth: 0, aliasDuplicateObjects: false });
  splices.forEach((s, i) => {
    const token = format === 'json' ? `"${SPLICE}${i}X"` : `${SPLICE}${i}X`;
    text = text.replace(token, () => s);
  });
  return text;
}

// ------------------------------------------------------------------ requests

function withName(obj: JsonObject, extraMetadata: JsonObject = {}): JsonObject {
  const metadata = isObject(obj.metadata) ? obj.metadata : {};
  return { ...obj, metadata: { ...metadata, name: NAME_TOKEN, ...extraMetadata } };
}

function pointerGet(obj: Json, pointer: string): Json {
  let v: Json = obj;
  for (const part of pointer.split('/').slice(1)) {
    const key = part.replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isObject(v)) throw new Error(`jsonPatch ${pointer}: not in the object`);
    v = v[key];
  }
  if (v === undefined) throw new Error(`jsonPatch ${pointer}: not in the object`);
  return v;
}

/** The body of a write path before rendering (generators still in it). */
function bodyFor(c: HostileCase, path: WritePath): Json {
  const given = c.bodies[path];
  if (given !== undefined) return given;
  const obj = c.object as JsonObject;
  switch (path) {
    case 'patch-json': {
      const pointers = c.jsonPatch ?? Object.keys(obj).filter((k) => !['apiVersion', 'kind', 'metadata'].includes(k)).map((k) => `/${k}`);
      return pointers.map((p) => ({ op: 'add', path: p, value: pointerGet(obj, p) }));
    }
    case 'update':
      return withName(obj, { resourceVersion: RV_TOKEN });
    default:
      return withName(obj);
  }
}

const CONTENT_TYPES: Record<WritePath, string> = {
  'create-json': 'application/json',
  'create-yaml': 'application/yaml',
  update: 'application/json',
  'patch-json': 'application/json-patch+json',
  'patch-merge': 'application/merge-patch+json',
  'patch-strategic': 'application/strategic-merge-patch+json',
  'apply-yaml': 'application/apply-patch+yaml',
  'apply-json': 'application/apply-patch+yaml',
};

const METHODS: Record<WritePath, string> = {
  'create-json': 'POST',
  'create-yaml': 'POST',
  update: 'PUT',
  'patch-json': 'PATCH',
  'patch-merge': 'PATCH',
  'patch-strategic': 'PATCH',
  'apply-yaml': 'PATCH',
  'apply-json': 'PATCH',
};

/** A case on one path, rendered once: every send only puts the name (and resourceVersion) in. */
export interface PreparedWrite {
  readonly c: HostileCase;
  readonly path: WritePath;
  readonly target: Target;
  readonly setupText: string | undefined;
  readonly bodyText: string;
}

export function prepareWrite(c: HostileCase, path: WritePath, targets: Targets, marker: string): PreparedWrite {
  const target = targets.targets[c.target];
  const needsSetup = !path.startsWith('create');
  const setupText = needsSetup ? renderBody(withName(c.setup ?? target.base), 'json', marker) : undefined;
  const format = path === 'create-yaml' || path === 'apply-yaml' ? 'yaml' : 'json';
  return { c, path, target, setupText, bodyText: renderBody(bodyFor(c, path), format, marker) };
}

export interface WriteResult {
  /** One answer per repeat. */
  answers: { response: Response; ms: number }[];
  /** The setup object's answer, when the path needed one. */
  setup?: Response;
}

function queryOf(c: HostileCase, path: WritePath): string {
  const q = new URLSearchParams(c.query);
  if (path.startsWith('apply')) {
    q.set('fieldManager', 'hostile');
    q.set('force', 'true');
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

/**
 * Creates the setup object (update, patch and apply paths; not part of the case), calls
 * `hooks.before` once the body is ready, then sends the write `repeat` times, one after another.
 */
export async function sendWrite(s: TestServer, w: PreparedWrite, name: string, hooks: { before?: () => void } = {}): Promise<WriteResult> {
  let rv = '';
  let setup: Response | undefined;
  if (w.setupText !== undefined) {
    setup = await s.request('POST', w.target.collection, { raw: w.setupText.replaceAll(NAME_TOKEN, name), headers: { 'Content-Type': 'application/json' } });
    if (setup.status !== 201) return { answers: [], setup };
    rv = String(setup.json?.metadata?.resourceVersion ?? '');
  }
  const body = w.bodyText.replaceAll(NAME_TOKEN, name).replaceAll(RV_TOKEN, rv);
  const url = (w.path.startsWith('create') ? w.target.collection : `${w.target.collection}/${name}`) + queryOf(w.c, w.path);
  hooks.before?.();
  const answers: WriteResult['answers'] = [];
  for (let i = 0; i < w.c.repeat; i++) {
    const t0 = performance.now();
    const response = await s.request(METHODS[w.path], url, { raw: body, headers: { 'Content-Type': CONTENT_TYPES[w.path] } });
    answers.push({ response, ms: performance.now() - t0 });
  }
  return { answers, setup };
}

// ------------------------------------------------------------------ expectations

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  404: 'NotFound',
  409: 'Conflict',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  500: 'InternalError',
};

export function expectationFor(c: HostileCase, path: WritePath): Expectation {
  return { ...c.expect, ...(c.expectByPath[path] ?? {}) };
}

/** `a.b.0.c`, with `\.` for a dot inside a key. */
function fieldAt(v: unknown, dotted: string): unknown {
  for (const part of dotted.split(/(?<!\\)\./).map((p) => p.replaceAll('\\.', '.'))) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

export function warningText(r: Response): string {
  const w = r.headers.warning;
  return Array.isArray(w) ? w.join('\n') : (w ?? '');
}

/** What is wrong with an answer, against the expectation and the secret marker; empty when nothing. */
export function problemsOf(r: Response, ms: number, e: Expectation, marker: string): string[] {
  const out: string[] = [];
  const allowed = e.status === undefined ? [] : Array.isArray(e.status) ? e.status : [e.status];
  if (allowed.length && !allowed.includes(r.status)) out.push(`status ${r.status}, expected ${allowed.join(' or ')}: ${r.text.slice(0, 300)}`);
  if (r.status >= 400) {
    const j = r.json as { kind?: string; code?: number; reason?: string } | undefined;
    if (j?.kind !== 'Status') out.push(`error answer is not a Status: ${r.text.slice(0, 200)}`);
    else {
      if (j.code !== r.status) out.push(`Status code ${String(j.code)} but HTTP ${r.status}`);
      const reason = REASONS[r.status];
      if (reason && j.reason !== reason) out.push(`Status reason ${String(j.reason)}, upstream's for ${r.status} is ${reason}`);
    }
  }
  const message = String((r.json as { message?: string } | undefined)?.message ?? '');
  for (const m of e.messageContains ?? []) if (r.status >= 400 && !message.includes(m)) out.push(`message does not contain "${m}": ${message.slice(0, 300)}`);
  const warnings = warningText(r);
  for (const m of e.warningContains ?? []) if (!warnings.includes(m)) out.push(`Warning headers do not contain "${m}": ${warnings.slice(0, 300) || '(none)'}`);
  if (r.status < 400) {
    for (const [f, want] of Object.entries(e.fields ?? {})) {
      const got = fieldAt(r.json, f);
      if (JSON.stringify(got) !== JSON.stringify(want)) out.push(`${f} is ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
    }
  }
  if (e.maxResponseMs !== undefined && ms > e.maxResponseMs) out.push(`answered in ${ms.toFixed(0)} ms, expected within ${e.maxResponseMs} ms`);
  if (r.text.includes(marker)) out.push('the answer body contains the secret value');
  if (warnings.includes(marker)) out.push('a Warning header contains the secret value');
  return out;
}

/** A unique string of base64 letters, 28 long (a multiple of 4, so that a suffix decides validity). */
export function secretMarker(): string {
  return `HostileSecret${Array.from({ length: 15 }, () => Math.floor(Math.random() * 16).toString(16)).join('')}`;
}
