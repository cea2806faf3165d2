// Shared by the same-verdict tests (in-process and e2e): the fixtures of test/fixtures/objects, the
// CRD bodies of out/crds, the two paths (built-in validator, custom resource of the mirror CRD), and
// the attribution of a divergent verdict to the rules out/rules/crd-left-out.json records as left out.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import * as validators from '../../out/validators/index.ts';
import { definitions } from '../../out/validators/definitions.ts';
import { featureGateDefaults } from '../../out/validators/feature-gates.ts';
import { builtinCelRuleEngine } from '../../runtime/cel/index.ts';
import { buildCustomResourceVersion, type CustomResourceDefinition, type CustomResourceVersion } from '../../runtime/crd/index.ts';
import { compileSchemaCode } from '../../runtime/schema/index.ts';
import type { CompiledValidator, FieldError, ResourceContext, Schema } from '../../runtime/schema/types.ts';
import type { LeftOutRecord, LeftOutRule } from '../../generators/crds/generator.ts';

export const ROOT = join(import.meta.dirname, '..', '..');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'objects');

export type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

export interface Fixture {
  shape?: string;
  featureGates?: Record<string, boolean>;
  object: unknown;
  old?: unknown;
  want?: FieldError[];
}

interface ValidatorModule {
  resourceContext: ResourceContext;
  validate(obj: unknown): FieldError[];
  validateUpdate(obj: unknown, old: unknown): FieldError[];
}

/** One generated CRD body and what it mirrors. */
export interface Mirror {
  file: string;
  crd: CustomResourceDefinition;
  kind: string;
  plural: string;
  group: string;
  version: string;
  namespaced: boolean;
  status: boolean;
  served: CustomResourceVersion;
  builtin: ValidatorModule;
  record: LeftOutRecord;
}

export interface MirrorCase {
  /** `<dir>/<file>` under test/fixtures/objects. */
  name: string;
  mirror: Mirror;
  fixture: Fixture;
}

const record: { crds: LeftOutRecord[] } = JSON.parse(readFileSync(join(ROOT, 'out', 'rules', 'crd-left-out.json'), 'utf8')) as { crds: LeftOutRecord[] };

/** Every CRD body of out/crds, by the lower-cased kind it mirrors (the fixture folder name). */
export const mirrors: Map<string, Mirror> = new Map(
  record.crds.map((r): [string, Mirror] => {
    const crd = parse(readFileSync(join(ROOT, 'out', r.file), 'utf8')) as CustomResourceDefinition;
    const version = crd.spec.versions[0];
    // by the apiVersion/kind it mirrors: Event is a kind of two groups; the folder is the module's name (eventsv1event)
    const apiVersionKind = (c: ResourceContext): string => `${c.group ? `${c.group}/` : ''}${c.version}/${c.kind}`;
    const found = (Object.entries(validators) as [string, ValidatorModule][]).find(([, v]) => apiVersionKind(v.resourceContext) === r.mirrors);
    if (!found) throw new Error(`no built-in validator for ${r.mirrors}`);
    const [module, builtin] = found;
    return [module.toLowerCase(), {
      file: r.file, crd, kind: r.kind, plural: crd.spec.names.plural ?? '', group: crd.spec.group, version: version.name,
      namespaced: crd.spec.scope === 'Namespaced', status: isObj(version.subresources?.status),
      served: buildCustomResourceVersion(crd, version.name), builtin, record: r,
    }];
  }),
);

/** Every resource fixture, and the fixtures no CRD body can take (a shape fixture: no resource mirrors a bare shape). */
export function loadCases(): { cases: MirrorCase[]; skipped: Array<{ name: string; why: string }> } {
  const cases: MirrorCase[] = [];
  const skipped: Array<{ name: string; why: string }> = [];
  for (const dir of readdirSync(FIXTURES).sort()) {
    for (const f of readdirSync(join(FIXTURES, dir)).filter((x) => x.endsWith('.yaml')).sort()) {
      const name = `${dir}/${f}`;
      const fixture = parse(readFileSync(join(FIXTURES, dir, f), 'utf8')) as Fixture;
      const mirror = mirrors.get(dir);
      if (fixture.shape) skipped.push({ name, why: `validates the shape ${fixture.shape}, which no CRD body mirrors` });
      else if (fixture.featureGates) skipped.push({ name, why: 'sets feature gates, which a CRD body cannot read' });
      else if (!mirror) skipped.push({ name, why: `no CRD body mirrors ${dir}` });
      // the validator's answer there is not upstream's yet (an expected failure of test/validators)
      else if ((fixture as { knownGap?: string }).knownGap) skipped.push({ name, why: `a known gap: ${(fixture as { knownGap?: string }).knownGap}` });
      else cases.push({ name, mirror, fixture });
    }
  }
  return { cases, skipped };
}

/** The fixture object as a custom resource of the mirror: same body, the mirror's apiVersion. */
export function asCustomResource(m: Mirror, obj: unknown): Obj {
  const out = clone(isObj(obj) ? obj : {});
  out.apiVersion = `${m.group}/${m.version}`;
  return out;
}

/** The built-in path: the generated validator, as test/validators runs it. */
export function builtinErrors(c: MirrorCase): FieldError[] {
  const { fixture, mirror } = c;
  return fixture.old === undefined ? mirror.builtin.validate(clone(fixture.object)) : mirror.builtin.validateUpdate(clone(fixture.object), clone(fixture.old));
}

/**
 * The CRD path in process, as the server decodes a custom resource write: metadata coercion, pruning,
 * defaulting, then validation (against the stored old object, itself written the same way, on update).
 */
export function crdErrors(c: MirrorCase): { errors: FieldError[]; oldErrors: FieldError[] } {
  const { fixture, mirror } = c;
  if (fixture.old === undefined) return { errors: mirror.served.write(asCustomResource(mirror, fixture.object)).errors, oldErrors: [] };
  const old = mirror.served.write(asCustomResource(mirror, fixture.old));
  return { errors: mirror.served.write(asCustomResource(mirror, fixture.object), old.object).errors, oldErrors: old.errors };
}

// ---------------------------------------------------------------------------------------------
// Attribution: an error is explained by a left-out rule when (1) it lies at or below the rule's
// node and (2) the built-in validator with that rule removed from spec's shapes no longer reports it.

type Segment = string;

/** `spec.drivers[0].name` → [spec, drivers, [0], name]; `data[..data]` → [data, [..data]]; `[]` → [] (the root). */
export function fieldSegments(field: string): Segment[] {
  const out: Segment[] = [];
  const re = /\[([^\]]*)\]|([^.[\]]+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(field))) {
    if (m[1] !== undefined) {
      if (field === '[]') continue;
      out.push(`[${m[1]}]`);
    } else out.push(m[2]);
  }
  return out;
}

/** Whether an error at `field` lies at or below a recorded node path (`.webhooks[*].name`, `.` for the root). */
export function covers(path: string, field: string): boolean {
  const want = path === '.' ? [] : fieldSegments(path);
  const got = fieldSegments(field);
  if (want.length > got.length) return false;
  return want.every((w, i) => (w === '[*]' ? got[i].startsWith('[') : w === got[i]));
}

const key = (e: FieldError): string => `${e.field}\u0000${e.reason}\u0000${e.message}`;

/** Removes recorded rules from a copy of spec's shapes (as the CRD body leaves them out). */
export function ablate(rules: readonly LeftOutRule[]): Record<string, Schema> {
  const defs = clone(definitions);
  const drops = new Map<Obj, { rules: Set<number>; validations: Set<number> }>();
  for (const r of rules) {
    const o = r.origin;
    if (!o) continue;
    const segs = o.pointer.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    let parent: Obj | undefined;
    let node: unknown = defs[o.shape];
    for (const s of segs) {
      parent = isObj(node) ? node : undefined;
      node = parent?.[s];
    }
    if (!isObj(node)) throw new Error(`crd-left-out.json: no node at ${o.shape}${o.pointer}`);
    if (o.source === 'schema') {
      // The CRD keeps a recursive shape untyped here: so does the ablated validator.
      if (!parent) throw new Error(`crd-left-out.json: the root of ${o.shape} cannot be ablated`);
      parent[segs[segs.length - 1]] = { type: 'object', 'x-cluster-preserve-unknown-fields': true };
      continue;
    }
    if (o.source === 'x-cluster-immutable') {
      delete node['x-cluster-immutable'];
      continue;
    }
    const d = drops.get(node) ?? { rules: new Set<number>(), validations: new Set<number>() };
    (o.source === 'x-cluster-rules' ? d.rules : d.validations).add(o.index ?? -1);
    drops.set(node, d);
  }
  for (const [node, d] of drops) {
    if (Array.isArray(node['x-cluster-rules'])) node['x-cluster-rules'] = node['x-cluster-rules'].filter((_r, i) => !d.rules.has(i));
    if (Array.isArray(node['x-cluster-validations'])) node['x-cluster-validations'] = node['x-cluster-validations'].filter((_r, i) => !d.validations.has(i));
  }
  return defs;
}

const ablated = new Map<string, CompiledValidator>();

/** The built-in validator of a kind without the given left-out rules (compiled once per set). */
function validatorWithout(m: Mirror, rules: readonly LeftOutRule[]): CompiledValidator {
  const id = `${m.kind}:${rules.map((r) => m.record.leftOut.indexOf(r)).join(',')}`;
  let v = ablated.get(id);
  if (!v) {
    v = compileSchemaCode({ $ref: `#/components/schemas/${m.kind}` }, {
      definitions: ablate(rules), resource: m.builtin.resourceContext, featureGates: featureGateDefaults, cel: builtinCelRuleEngine, celErrorValue: 'value',
    });
    ablated.set(id, v);
  }
  return v;
}

export interface Attribution {
  /** Every built-in error explained, each by the left-out rules whose removal makes it go away. */
  explained: boolean;
  rules: LeftOutRule[];
  unexplained: FieldError[];
}

/** Attributes the built-in errors of a case (the CRD path accepted it) to the rules its CRD body leaves out. */
/** Where a left-out rule reports: its path, or the object holding its list for itemsAtParent (runtime/schema/rules/itemsAtParent.ts). */
function reportedAt(r: LeftOutRule): string {
  return r.rule === 'itemsAtParent' ? r.path.slice(0, r.path.lastIndexOf('.')) || '.' : r.path;
}

export function attribute(c: MirrorCase, errors: readonly FieldError[]): Attribution {
  const m = c.mirror;
  const run = (v: CompiledValidator): Set<string> => new Set(
    (c.fixture.old === undefined ? v.validate(clone(c.fixture.object)) : v.validateUpdate(clone(c.fixture.object), clone(c.fixture.old))).map(key),
  );
  const rules = new Set<LeftOutRule>();
  const unexplained: FieldError[] = [];
  for (const e of errors) {
    const candidates = m.record.leftOut.filter((r) => r.origin && covers(reportedAt(r), e.field));
    // One rule at a time names the rule; all candidates together cover an error two left-out rules both report.
    const single = candidates.filter((r) => !run(validatorWithout(m, [r])).has(key(e)));
    if (single.length) single.forEach((r) => rules.add(r));
    else if (candidates.length && !run(validatorWithout(m, candidates)).has(key(e))) candidates.forEach((r) => rules.add(r));
    else unexplained.push(e);
  }
  return { explained: unexplained.length === 0, rules: [...rules], unexplained };
}

/** `ConfigMap .data keySyntax (cost)`: how a report names a left-out rule. */
export function ruleName(m: Mirror, r: LeftOutRule): string {
  return `${m.kind} ${r.path} ${r.rule} (${r.why})`;
}
