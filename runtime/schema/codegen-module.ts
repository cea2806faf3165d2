// A schema compiled ahead of time into the parts of a module (what generators/validators writes
// into out/validators): the validation as TypeScript source (codegen.ts, typed), and as data what
// the module links at run time without the compiler (standalone.ts): the closures' recipes, the
// structure defaulting and pruning walk, and the definitions the closures read (CEL type checking,
// the few rules that look at their schema). Compiled with no feature gate on, so that a rule a gate
// lifts is kept and reads the gate when it runs.
import type { CompileOptions, Schema } from './types.ts';
import { Generator, type SharedDefinitions } from './codegen.ts';
import { compileTree, type SchemaTree, type TreeNode } from './schema-tree.ts';
import type { StandaloneData, StructEntry } from './standalone.ts';
import { hasOwn, isObject } from './rules/util.ts';
import { siteSchemas, type ClosureRecipe } from './closures.ts';
import { compileCelRuleToJs } from './cel-aot.ts';
import { resolveSchemaRef } from './resolve-ref.ts';


export interface SchemaModule {
  /**
   * Statements of a function of (R, H, S, C) (R the closures linked from `data.closures`, H the
   * helpers of codegen-runtime.ts, S the shared module's functions, C the compiled CEL rules the
   * guards of CEL closures call) that return the root validator.
   */
  source: string;
  data: StandaloneData;
  /** The CEL rules compiled to JavaScript: sources of `(s, o) => boolean` over helpers `A`, indexed by the recipes' `fast`. */
  compiledCel: string[];
}

/**
 * Compiles a schema into a module's source and data; throws SchemaCompileError as compileSchemaCode does.
 * The definitions named in `shared` are not generated here: the source calls them through `S`, the
 * functions of the shared module (compileSharedModule of the same names).
 */
export function compileSchemaModule(schema: Schema, options: CompileOptions = {}, shared: ReadonlySet<string> = new Set()): SchemaModule {
  const tree = compileTree(schema, { ...options, featureGates: {} });
  const cel = compileCelAhead(tree, schema, options);
  return moduleOf(tree, schema, options, cel, new Generator(tree, true, { names: shared, local: false }, cel.guards).source());
}

/**
 * The module of definitions several kinds share (out/validators/shared.ts): its source returns their
 * functions by name; its data links their closures. Compiled as the definitions of a non-resource
 * root, so the functions are the same whatever kind calls them (only a resource's root has a metadata check).
 */
export function compileSharedModule(names: readonly string[], options: CompileOptions = {}): SchemaModule {
  const shared: SharedDefinitions = { names: new Set(names), local: true };
  const root: Schema = { type: 'object', properties: Object.fromEntries([...shared.names].sort().map((n) => [n, { $ref: `#/components/schemas/${n}` }])) };
  const { resource: _resource, ...rest } = options;
  const tree = compileTree(root, { ...rest, featureGates: {} });
  const cel = compileCelAhead(tree, root, rest);
  return moduleOf(tree, root, rest, cel, new Generator(tree, true, shared, cel.guards).sharedSource());
}

/** Nodes below which a definition reached by several kinds stays inlined in each (a call would cost more than it saves). */
const SHARED_MIN_NODES = 6;

/**
 * The definitions worth one shared module: reached from every root (two or more; resources' own
 * definitions excluded, `exclude`), and of at least `minNodes` schema nodes. Sorted. Every root, not
 * only several: a kind imports the whole shared module, and a bundle of one kind must hold no shape
 * that only other kinds use (a definition a few kinds share stays in each of them).
 */
export function sharedDefinitionNames(
  roots: readonly Schema[],
  definitions: Record<string, Schema>,
  exclude: ReadonlySet<string>,
  minNodes = SHARED_MIN_NODES,
): string[] {
  const uses = new Map<string, number>();
  for (const r of roots) for (const name of Object.keys(reachableDefinitions(r, definitions))) uses.set(name, (uses.get(name) ?? 0) + 1);
  return [...uses].filter(([name, n]) => n >= 2 && n === roots.length && !exclude.has(name) && schemaNodes(definitions[name], minNodes) >= minNodes)
    .map(([name]) => name).sort();
}

/** The schema nodes of a definition up to `limit` (a `$ref` counts as one). */
function schemaNodes(s: unknown, limit: number): number {
  let n = 0;
  const todo: unknown[] = [s];
  while (todo.length && n < limit) {
    const v = todo.pop();
    if (!isObject(v)) continue;
    n++;
    if (typeof v.$ref === 'string') continue;
    if (isObject(v.properties)) todo.push(...Object.values(v.properties));
    for (const k of ['items', 'additionalProperties', 'not']) if (isObject(v[k])) todo.push(v[k]);
    for (const k of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(v[k])) todo.push(...(v[k] as unknown[]));
  }
  return n;
}

/** The closures' recipes with their CEL rules compiled to JavaScript where they compile. */
interface CelAhead {
  closures: ClosureRecipe[];
  /** Sources of the compiled rules, indexed by the recipes' `fast`. */
  compiledCel: string[];
  /**
   * By closure index, the compiled rules that together decide every rule of a CEL closure on a
   * create and an update alike (each compiled, none reads oldSelf): the generated code calls the
   * closure only when one of them does not answer true.
   */
  guards: Map<number, number[]>;
}

/** Whether a CEL rule may read the old value (a transition rule, or one with optionalOldSelf). */
function readsOld(rule: unknown): boolean {
  if (!isObject(rule) || typeof rule.rule !== 'string') return true;
  return rule.optionalOldSelf === true || /\boldSelf\b/.test(rule.rule);
}

function compileCelAhead(tree: SchemaTree, schema: Schema, options: CompileOptions): CelAhead {
  const definitions = options.definitions ?? {};
  const compiledCel: string[] = [];
  const guards = new Map<number, number[]>();
  const closures = tree.closures.map((c, i): ClosureRecipe => {
    const r = c.recipe;
    if (r.t !== 'cel') return r;
    const { own, scope } = siteSchemas({ root: schema, definitions }, r.site);
    const rules = Array.isArray(own['x-cluster-validations']) ? own['x-cluster-validations'] : [];
    const ruleScope = scope ?? resolveSchemaRef(own, definitions);
    const fast = rules.map((rule) => {
      const js = compileCelRuleToJs(rule, ruleScope, definitions);
      return js === null ? -1 : compiledCel.push(js) - 1;
    });
    if (fast.length > 0 && fast.every((f) => f >= 0) && !rules.some(readsOld)) guards.set(i, fast);
    return fast.some((f) => f >= 0) ? { ...r, fast } : r;
  });
  return { closures, compiledCel, guards };
}

function moduleOf(tree: SchemaTree, schema: Schema, options: CompileOptions, cel: CelAhead, source: string): SchemaModule {
  const definitions = options.definitions ?? {};
  const { closures, compiledCel } = cel;
  return {
    source,
    compiledCel,
    data: {
      root: schema,
      definitions: reachableDefinitions(schema, definitions),
      closures,
      structure: structureOf(tree),
      isResource: tree.isResource,
    },
  };
}

/** The definitions a schema reaches through `$ref`, sorted by name. */
function reachableDefinitions(schema: Schema, definitions: Record<string, Schema>): Record<string, Schema> {
  const seen = new Set<string>();
  const todo: unknown[] = [schema];
  while (todo.length) {
    const v = todo.pop();
    if (Array.isArray(v)) todo.push(...v);
    else if (isObject(v)) {
      const ref = v.$ref;
      if (typeof ref === 'string') {
        const m = /#\/(?:components\/schemas|definitions)\/([^/]+)$/.exec(ref);
        const name = m ? decodeURIComponent(m[1]).replace(/~1/g, '/').replace(/~0/g, '~') : null;
        if (name !== null && !seen.has(name) && hasOwn(definitions, name)) {
          seen.add(name);
          todo.push(definitions[name]);
        }
      }
      for (const k of Object.keys(v)) if (k !== '$ref') todo.push(v[k]);
    }
  }
  return Object.fromEntries([...seen].sort().map((n) => [n, definitions[n]]));
}

/** The nodes defaulting and pruning reach from the root (properties, items, additionalProperties, $ref targets). */
function structureOf(tree: SchemaTree): StructEntry[] {
  const index = new Map<TreeNode, number>();
  const order: TreeNode[] = [];
  const visit = (n: TreeNode): number => {
    const known = index.get(n);
    if (known !== undefined) return known;
    index.set(n, order.length);
    order.push(n);
    return order.length - 1;
  };
  visit(tree.root);
  const entries: StructEntry[] = [];
  for (let i = 0; i < order.length; i++) {
    const n = order[i];
    const e: StructEntry = {};
    if (n.props) e.p = [...n.props].map(([k, c]) => [k, visit(c)]);
    if (n.additional) e.a = visit(n.additional);
    if (n.additionalAny) e.ay = 1;
    if (n.items) e.i = visit(n.items);
    if (n.target) e.t = visit(n.target);
    if (n.local.default !== undefined) e.d = n.local.default;
    if (n.local.nullable === true) e.n = 1;
    if (n.hasDefaults) e.h = 1;
    if (n.embedded) e.e = 1;
    if (n.preserve) e.pr = 1;
    if (n.isDef) e.def = 1;
    if (n.schema.type === 'object') e.o = 1;
    entries.push(e);
  }
  return entries;
}
