// The schema tree both validator builders start from: a Schema (OpenAPI 3.0 / JSONSchemaProps with
// x-cluster-* extensions) checked and resolved once into nodes that say what to validate (type,
// enum, string and number checks, list and object checks, composition, metadata, declarative rules
// and CEL as closures) and the structure defaulting and pruning walk. compile.ts turns the tree into
// closures (cheap to build: CRD schemas, one-off checks); codegen.ts into generated JavaScript (fast
// to run: the built-in types). A malformed schema fails here, with a SchemaCompileError naming
// the JSON pointer of the problem.
import type { CompileOptions, ResourceContext, RuleSpec, Schema } from './types.ts';
import type { ValidationContext } from './context.ts';
import { numberFormat, stringFormat } from './formats.ts';
import { metadataCheck, type Check, type ClosureRecipe, type SchemaSite } from './closures.ts';
import { getRule } from './rules/index.ts';
import type { CompiledRule, RuleEnv } from './rules/types.ts';
import { hasOwn, isObject } from './rules/util.ts';
import { SchemaCompileError } from './compile-error.ts';
import { FAST_SYNTAX } from './fastsyntax.ts';
import { compileCelCheck } from './cel-check.ts';
import { compilePattern, type CompiledPattern } from './pattern.ts';
import { resolveSchemaRef } from './resolve-ref.ts';

/** Keywords beside a $ref that do not make a wrapper node (documentation and patch metadata). */
const SKIP_BESIDE_REF = new Set(['$ref', 'description', 'title', 'example', 'deprecated', 'x-cluster-source', 'x-cluster-deprecated', 'x-cluster-behavior-default', 'x-cluster-write-only', 'x-cluster-feature-gate', 'x-cluster-vendor-label', 'x-cluster-patch-strategy', 'x-cluster-patch-merge-key']);

function ptrEscape(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

const EMPTY_ARRAY: never[] = [];

/** Whether a property's own rules (beside a $ref too) include a nonEmpty that also runs when it is absent. */
function reportsAbsence(ps: Schema): boolean {
  const rules = isObject(ps) ? ps['x-cluster-rules'] : undefined;
  // absentAsZero: required in the documents, yet upstream accepts the absent field as its zero value.
  return Array.isArray(rules) && rules.some((r) => isObject(r) && ((r.rule === 'nonEmpty' && r.whenAbsent !== false) || r.rule === 'absentAsZero' || checksEnumAndAbsence(r)));
}

/** Whether a node's own rules check its enum (and absence) in upstream's wording, instead of the tree. */
function enumCheckedByRule(s: Schema): boolean {
  const rules = s['x-cluster-rules'];
  return Array.isArray(rules) && rules.some(checksEnumAndAbsence);
}

function checksEnumAndAbsence(r: unknown): boolean {
  return isObject(r) && typeof r.rule === 'string' && getRule(r.rule)?.checksEnumAndAbsence === true;
}

/** A closure of the tree (rule, CEL, metadata check) that either builder calls, with where it comes from. */
export interface ClosureRef {
  /** JSON pointer of the schema node. */
  ptr: string;
  /** `rule:<kind>`, `cel`, `metadata`, `absent:<kind>`. */
  what: string;
  fn: Check;
  /** How to build the closure again without the tree (the standalone validators of out/validators). */
  recipe: ClosureRecipe;
}

export type { Check, ClosureRecipe, SchemaSite };

const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);

interface StrCheck { k: 'minLen' | 'maxLen'; n: number }
interface PatternCheck { k: 'pattern'; re: CompiledPattern; pattern: string }
interface FormatCheck { k: 'format'; fname: string }
interface NumBound { k: 'min' | 'max'; n: number; exc: boolean }
interface MultipleCheck { k: 'multiple'; f: number }

/** One compiled schema node: structure (for defaulting and pruning) and what to generate. */
export interface TreeNode {
  id: number;
  local: Schema;
  schema: Schema;
  props: Map<string, TreeNode> | null;
  additional: TreeNode | null;
  additionalAny: boolean;
  items: TreeNode | null;
  preserve: boolean;
  embedded: boolean;
  /** The $ref target of a wrapper. */
  target: TreeNode | null;
  /** A wrapper's local keywords, validated after the target. */
  extra: TreeNode | null;
  absent: { fn: number; updateOnly: boolean }[];
  mapKeys: string[] | null;
  hasDefaults: boolean;
  isDef: boolean;
  defName: string | null;
  // ---- validation
  /** The node validates nothing (no type, no checks). */
  empty: boolean;
  type: string | null;
  intOrString: boolean;
  typeLabel: string;
  nullable: boolean;
  enumValues: unknown[] | null;
  str: (StrCheck | PatternCheck | FormatCheck)[];
  num: (NumBound | MultipleCheck | FormatCheck)[];
  arr: {
    minItems: number; maxItems: number; unique: boolean; isSet: boolean; mapKeys: string[] | null; oldMapKeys: string[] | null;
  } | null;
  obj: { apFalse: boolean; required: string[]; minProps: number; maxProps: number; resource: boolean } | null;
  allOf: TreeNode[] | null;
  anyOf: TreeNode[] | null;
  oneOf: TreeNode[] | null;
  not: TreeNode | null;
  /** Closure index of the root metadata check. */
  meta: number;
  rules: { fn: number; updateOnly: boolean; fast: FastRule | null }[];
  cel: number;
  // ---- analysis
  needsOld: boolean;
}

export interface SchemaTree {
  root: TreeNode;
  closures: ClosureRef[];
  nodes: TreeNode[];
  isResource: boolean;
}

export function compileTree(schema: Schema, options: CompileOptions): SchemaTree {
  const definitions = options.definitions ?? {};
  const featureGates = options.featureGates ?? {};
  const defNodes = new Map<string, TreeNode>();
  const cel = options.cel;
  const celErrorValue = options.celErrorValue ?? 'type';
  const closures: ClosureRef[] = [];
  const nodes: TreeNode[] = [];
  const addClosure = (ptr: string, what: string, fn: Check, recipe: ClosureRecipe): number => closures.push({ ptr, what, fn, recipe }) - 1;
  // The `$ref` a wrapper's local keywords stand beside (their rules see the referenced structure too).
  const wrapperRefs = new WeakMap<Schema, string>();
  const siteOf = (s: Schema, ptr: string): SchemaSite => {
    const ref = wrapperRefs.get(s);
    return ref === undefined ? { ptr } : { ptr, ref, local: s };
  };

  function refName(ref: string, ptr: string): string {
    const m = /#\/(?:components\/schemas|definitions)\/([^/]+)$/.exec(ref);
    if (!m) throw new SchemaCompileError(ptr + '/$ref', `unsupported $ref ${JSON.stringify(ref)}: expected '#/components/schemas/<Name>'`);
    const name = decodeURIComponent(m[1]).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!hasOwn(definitions, name)) throw new SchemaCompileError(ptr + '/$ref', `$ref to unknown definition ${JSON.stringify(name)}`);
    return name;
  }

  const ruleScopes = new WeakMap<Schema, Schema>();

  function resolve(s: Schema): Schema {
    return resolveSchemaRef(s, definitions);
  }

  const env: RuleEnv = { featureGates, resolve };

  function newNode(local: Schema, s: Schema): TreeNode {
    const n: TreeNode = {
      id: nodes.length, local, schema: s, props: null, additional: null, additionalAny: false, items: null,
      preserve: false, embedded: false, target: null, extra: null, absent: [], mapKeys: null, hasDefaults: false,
      isDef: false, defName: null, empty: true, type: null, intOrString: false, typeLabel: '', nullable: false,
      enumValues: null, str: [], num: [], arr: null, obj: null, allOf: null, anyOf: null, oneOf: null, not: null,
      meta: -1, rules: [], cel: -1, needsOld: false,
    };
    nodes.push(n);
    return n;
  }

  function compileDef(name: string): TreeNode {
    const existing = defNodes.get(name);
    if (existing) return existing;
    const s = definitions[name];
    const node = newNode(s, s);
    node.isDef = true;
    node.defName = name;
    defNodes.set(name, node);
    build(node, s, `/components/schemas/${ptrEscape(name)}`, false);
    return node;
  }

  function compileNode(s: Schema, ptr: string, isRoot = false): TreeNode {
    if (!isObject(s)) throw new SchemaCompileError(ptr, 'schema must be an object');
    if (s.$ref !== undefined) {
      if (typeof s.$ref !== 'string') throw new SchemaCompileError(ptr + '/$ref', '$ref must be a string');
      const target = compileDef(refName(s.$ref, ptr));
      const extraKeys = Object.keys(s).filter((k) => !SKIP_BESIDE_REF.has(k));
      if (extraKeys.length === 0 && !isRoot) return target;
      const w = newNode(s, target.schema);
      w.target = target;
      const local: Schema = {};
      for (const k of extraKeys) (local as Record<string, unknown>)[k] = (s as Record<string, unknown>)[k];
      ruleScopes.set(local, { ...target.schema, ...local });
      wrapperRefs.set(local, target.defName as string);
      const extra = newNode(local, local);
      build(extra, local, ptr, isRoot);
      w.extra = extra;
      w.absent = extra.absent;
      w.hasDefaults = target.hasDefaults || local.default !== undefined;
      w.empty = false;
      return w;
    }
    const node = newNode(s, s);
    build(node, s, ptr, isRoot);
    return node;
  }

  function compileRules(s: Schema, ptr: string): [RuleSpec, CompiledRule][] {
    const specs: RuleSpec[] = [];
    if (s['x-cluster-immutable'] === true) specs.push({ rule: 'immutable' });
    const rules = s['x-cluster-rules'];
    if (rules !== undefined && !Array.isArray(rules)) throw new SchemaCompileError(ptr + '/x-cluster-rules', 'x-cluster-rules must be a list');
    const out: [RuleSpec, CompiledRule][] = [];
    const all = [...specs.map((r) => [r, ptr + '/x-cluster-immutable'] as const), ...(rules ?? []).map((r, i) => [r, `${ptr}/x-cluster-rules/${i}`] as const)];
    for (const [r, rp] of all) {
      if (!isObject(r) || typeof r.rule !== 'string') throw new SchemaCompileError(rp, 'a rule must be an object with a string `rule`');
      const kind = getRule(r.rule);
      if (!kind) throw new SchemaCompileError(rp, `unknown rule kind ${JSON.stringify(r.rule)}`);
      const node = ruleScopes.get(s) ?? s;
      const problem = kind.checkParams(r, node, env);
      if (problem) throw new SchemaCompileError(rp, `rule ${r.rule}: ${problem}`);
      const c = kind.compile(r, node, env);
      if (c) out.push([r, c]);
    }
    return out;
  }

  function num(v: unknown, ptr: string): number {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new SchemaCompileError(ptr, 'must be a number');
    return v;
  }

  function build(node: TreeNode, s: Schema, ptr: string, isRoot: boolean): void {
    let nChecks = 0;
    const type = s.type;
    if (type !== undefined && !TYPES.has(type)) throw new SchemaCompileError(ptr + '/type', `unknown type ${JSON.stringify(type)}`);
    const intOrString = s['x-cluster-int-or-string'] === true;
    node.intOrString = intOrString;
    node.type = type ?? null;
    node.typeLabel = intOrString ? 'integer,string' : type ?? '';
    node.nullable = s.nullable === true;
    node.preserve = s['x-cluster-preserve-unknown-fields'] === true;
    node.embedded = s['x-cluster-embedded-resource'] === true;

    // ---- enum
    if (s.enum !== undefined) {
      if (!Array.isArray(s.enum)) throw new SchemaCompileError(ptr + '/enum', 'enum must be a list');
      if (!enumCheckedByRule(s)) {
        node.enumValues = s.enum;
        nChecks++;
      }
    }

    // ---- strings
    if (s.minLength !== undefined) node.str.push({ k: 'minLen', n: num(s.minLength, ptr + '/minLength') });
    if (s.maxLength !== undefined) node.str.push({ k: 'maxLen', n: num(s.maxLength, ptr + '/maxLength') });
    if (s.pattern !== undefined) {
      // RE2 (linear time, Go's syntax): a CRD's pattern is checked when the CRD is written (runtime/crd/structural.ts)
      const compiled = compilePattern(String(s.pattern));
      if (!compiled.ok) throw new SchemaCompileError(ptr + '/pattern', `invalid pattern: ${compiled.error}`);
      node.str.push({ k: 'pattern', re: compiled.pattern, pattern: s.pattern });
    }
    if (s.format !== undefined) {
      const sf = stringFormat(s.format);
      if (sf && (type === 'string' || type === undefined || intOrString)) node.str.push({ k: 'format', fname: s.format });
    }
    if (node.str.length) nChecks++;

    // ---- numbers
    if (s.minimum !== undefined) node.num.push({ k: 'min', n: num(s.minimum, ptr + '/minimum'), exc: s.exclusiveMinimum === true });
    if (s.maximum !== undefined) node.num.push({ k: 'max', n: num(s.maximum, ptr + '/maximum'), exc: s.exclusiveMaximum === true });
    if (s.multipleOf !== undefined) {
      const f = num(s.multipleOf, ptr + '/multipleOf');
      if (f <= 0) throw new SchemaCompileError(ptr + '/multipleOf', 'multipleOf must be positive');
      node.num.push({ k: 'multiple', f });
    }
    if (s.format !== undefined && (type === 'integer' || type === 'number')) {
      if (numberFormat(s.format)) node.num.push({ k: 'format', fname: s.format });
    }
    if (node.num.length) nChecks++;

    // ---- arrays
    const listType = s['x-cluster-list-type'];
    if (s.items !== undefined) {
      if (Array.isArray(s.items)) throw new SchemaCompileError(ptr + '/items', 'items must be a single schema (tuple items are not supported)');
      node.items = compileNode(s.items, ptr + '/items');
    }
    if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
      throw new SchemaCompileError(ptr + '/x-cluster-list-type', `unknown list type ${JSON.stringify(listType)}`);
    }
    if (listType === 'map') {
      const keys = s['x-cluster-list-map-keys'];
      if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => typeof k === 'string')) {
        throw new SchemaCompileError(ptr + '/x-cluster-list-map-keys', 'x-cluster-list-type map needs x-cluster-list-map-keys');
      }
      node.mapKeys = [...keys].sort();
    }
    const ruleSpecs = Array.isArray(s['x-cluster-rules']) ? s['x-cluster-rules'] : [];
    const mapKeysByRule = node.mapKeys !== null && node.mapKeys.length === 1
      && ruleSpecs.some((r) => isObject(r) && r.rule === 'uniqueBy' && r.key === node.mapKeys![0]);
    {
      const minItems = s.minItems !== undefined ? num(s.minItems, ptr + '/minItems') : -1;
      const maxItems = s.maxItems !== undefined ? num(s.maxItems, ptr + '/maxItems') : -1;
      const unique = s.uniqueItems === true;
      const isSet = listType === 'set';
      const mapKeys = mapKeysByRule ? null : node.mapKeys;
      if (node.items || minItems >= 0 || maxItems >= 0 || unique || isSet || mapKeys) {
        node.arr = { minItems, maxItems, unique, isSet, mapKeys, oldMapKeys: node.mapKeys };
        nChecks++;
      }
    }

    // ---- objects
    const mapType = s['x-cluster-map-type'];
    if (mapType !== undefined && mapType !== 'granular' && mapType !== 'atomic') {
      throw new SchemaCompileError(ptr + '/x-cluster-map-type', `unknown map type ${JSON.stringify(mapType)}`);
    }
    if (s.properties !== undefined) {
      if (!isObject(s.properties)) throw new SchemaCompileError(ptr + '/properties', 'properties must be a map');
      node.props = new Map();
      for (const [k, ps] of Object.entries(s.properties)) node.props.set(k, compileNode(ps, `${ptr}/properties/${ptrEscape(k)}`));
    }
    const ap = s.additionalProperties;
    let apFalse = false;
    if (ap !== undefined) {
      if (ap === true) node.additionalAny = true;
      else if (ap === false) apFalse = true;
      else if (isObject(ap)) node.additional = compileNode(ap, ptr + '/additionalProperties');
      else throw new SchemaCompileError(ptr + '/additionalProperties', 'additionalProperties must be a schema or a boolean');
    }
    const requiredList = s.required ?? EMPTY_ARRAY;
    if (!Array.isArray(requiredList)) throw new SchemaCompileError(ptr + '/required', 'required must be a list');
    const required = requiredList.filter((r) => !(isObject(s.properties) && hasOwn(s.properties, r) && reportsAbsence(s.properties[r] as Schema)));
    const minProps = s.minProperties !== undefined ? num(s.minProperties, ptr + '/minProperties') : -1;
    const maxProps = s.maxProperties !== undefined ? num(s.maxProperties, ptr + '/maxProperties') : -1;
    const resource = isRoot ? options.resource : undefined;
    if (node.props || node.additional || apFalse || required.length || minProps >= 0 || maxProps >= 0) {
      node.obj = { apFalse, required, minProps, maxProps, resource: resource !== undefined };
      nChecks++;
    }

    // ---- composition
    const branches = (key: 'allOf' | 'anyOf' | 'oneOf'): TreeNode[] | null => {
      const list = s[key];
      if (list === undefined) return null;
      if (!Array.isArray(list)) throw new SchemaCompileError(`${ptr}/${key}`, `${key} must be a list`);
      return list.map((b, i) => compileNode(b, `${ptr}/${key}/${i}`));
    };
    node.allOf = branches('allOf');
    node.anyOf = branches('anyOf');
    node.oneOf = branches('oneOf');
    node.not = s.not !== undefined ? compileNode(s.not, ptr + '/not') : null;
    if (node.allOf) nChecks++;
    if (node.anyOf) nChecks++;
    if (node.oneOf) nChecks++;
    if (node.not) nChecks++;
    if (node.embedded) nChecks++;

    // ---- resource metadata
    if (resource) {
      node.meta = addClosure(ptr, 'metadata', metadataCheck(resource), { t: 'metadata' });
      nChecks++;
    }

    // ---- declarative rules
    const rules = compileRules(s, ptr);
    rules.forEach(([spec, r]) => {
      const fn = addClosure(ptr, `rule:${spec.rule}`, r.check, { t: 'rule', spec, site: siteOf(s, ptr) });
      if (r.whenAbsent) node.absent.push({ fn, updateOnly: !!r.updateOnly });
      node.rules.push({ fn, updateOnly: !!r.updateOnly, fast: fastRule(spec) });
      nChecks++;
    });

    // ---- CEL
    const celCheck = compileCelCheck(s, ptr, { cel, definitions, celErrorValue, scope: ruleScopes.get(s), resolve, compileErrors: options.celCompileErrors });
    if (celCheck) {
      node.cel = addClosure(ptr, 'cel', celCheck, { t: 'cel', site: siteOf(s, ptr) });
      nChecks++;
    }

    // ---- defaults
    if (s.default !== undefined) node.hasDefaults = true;
    const childHasDefaults = (): boolean => {
      if (node.props) for (const c of node.props.values()) if (c.hasDefaults) return true;
      return !!(node.items?.hasDefaults || node.additional?.hasDefaults);
    };
    if (childHasDefaults()) node.hasDefaults = true;

    const hasType = intOrString || type !== undefined;
    node.empty = !hasType && nChecks === 0;
  }

  const root = compileNode(schema, '', true);

  // Which nodes read the old value (rules, CEL, metadata): the others are given undefined.
  const ownOld = (n: TreeNode): boolean => n.rules.length > 0 || n.cel >= 0 || n.meta >= 0 || n.absent.length > 0;
  for (const n of nodes) n.needsOld = ownOld(n);
  for (let changed = true; changed;) {
    changed = false;
    for (const n of nodes) {
      if (n.needsOld) continue;
      const kids: (TreeNode | null)[] = [n.target, n.extra, n.items, n.additional, n.not, ...(n.props?.values() ?? []), ...(n.allOf ?? []), ...(n.anyOf ?? []), ...(n.oneOf ?? [])];
      if (kids.some((k) => k?.needsOld)) { n.needsOld = true; changed = true; }
    }
  }
  return { root, closures, nodes, isResource: !!options.resource };
}

/**
 * A rule whose closure reports nothing when a fast syntax check accepts the value (or every key):
 * the generated code calls the closure only when that check rejects.
 */
export interface FastRule { on: 'value' | 'keys'; syntax: string }

function fastRule(spec: RuleSpec): FastRule | null {
  if ((spec.rule !== 'syntax' && spec.rule !== 'keySyntax') || typeof spec.syntax !== 'string' || !hasOwn(FAST_SYNTAX, spec.syntax)) return null;
  return { on: spec.rule === 'syntax' ? 'value' : 'keys', syntax: spec.syntax };
}
