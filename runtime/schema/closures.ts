// The closures the generated validators call (metadata, declarative rules, CEL), built from their
// recipes (schema-tree.ts records one per closure): the standalone validators of out/validators
// link them from data instead of building the schema tree, each on its first call.
import type { CelRuleEngine, ResourceContext, RuleSpec, Schema } from './types.ts';
import type { ValidationContext } from './context.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './metadata.ts';
import { getRule } from './rules/index.ts';
import { isObject, hasOwn } from './rules/util.ts';
import { compileCelCheck } from './cel-check.ts';
import type { CompiledCelFast } from './cel-aot-runtime.ts';
import { resolveSchemaRef } from './resolve-ref.ts';

/** A validation closure: the value, the old value (updates) and the context errors go to. */
export type Check = (v: unknown, old: unknown, ctx: ValidationContext) => void;

/** The root metadata check of a resource's schema (ObjectMeta, and its update rules). */
export function metadataCheck(r: ResourceContext): Check {
  const rootMeta = { path: 'metadata', nameSyntax: r.nameSyntax, requireName: true, namespaced: r.namespaced };
  return (v, old, ctx) => {
    if (!isObject(v)) return;
    const mp = ctx.depth === 0 ? 'metadata' : `${ctx.path()}.metadata`;
    validateObjectMeta(v.metadata, ctx.depth === 0 ? rootMeta : { ...rootMeta, path: mp }, ctx.errors);
    if (ctx.update && isObject(old)) validateObjectMetaUpdate(v.metadata, old.metadata, mp, ctx.errors);
  };
}

/**
 * Where a closure's schema is: `ptr` (a JSON pointer into `{ components: { schemas } }`, '' for the
 * root schema), or the local keywords beside a `$ref` to `ref` (rules there see the referenced
 * structure merged with them).
 */
export type SchemaSite = { ptr: string } | { ptr: string; ref: string; local: Schema };

/** A closure as data: enough to build it again from the definitions. */
export type ClosureRecipe =
  | { t: 'metadata' }
  | { t: 'rule'; spec: RuleSpec; site: SchemaSite }
  | { t: 'cel'; site: SchemaSite; fast?: number[] };

export interface ClosureEnv {
  root: Schema;
  definitions: Record<string, Schema>;
  resource: ResourceContext | undefined;
  cel: CelRuleEngine | undefined;
  celErrorValue: 'type' | 'value';
  /** The module's CEL rules compiled to JavaScript, indexed by the recipes' `fast`. */
  compiledCel?: readonly CompiledCelFast[];
  /** Check every compiled rule's true against the interpreter (tests). */
  verifyCompiledCel?: boolean;
}

function unescapePtr(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The schema at a JSON pointer of the tree ('' is the root schema). */
function schemaAt(env: Pick<ClosureEnv, 'root' | 'definitions'>, ptr: string): Schema {
  if (ptr === '') return env.root;
  let cur: unknown = { components: { schemas: env.definitions } };
  for (const seg of ptr.slice(1).split('/')) {
    const k = unescapePtr(seg);
    cur = Array.isArray(cur) ? cur[Number(k)] : isObject(cur) && hasOwn(cur, k) ? cur[k] : undefined;
  }
  if (!isObject(cur)) throw new Error(`no schema at ${ptr}`);
  return cur as Schema;
}

function resolver(definitions: Record<string, Schema>): (s: Schema) => Schema {
  return (s) => resolveSchemaRef(s, definitions);
}

/** The node's own schema and the schema its rules see. */
export function siteSchemas(env: Pick<ClosureEnv, 'root' | 'definitions'>, site: SchemaSite): { own: Schema; scope: Schema | undefined } {
  if ('ref' in site) return { own: site.local, scope: { ...env.definitions[site.ref], ...site.local } };
  return { own: schemaAt(env, site.ptr), scope: undefined };
}

/** Builds one closure from its recipe (the schema was checked when the recipe was made). */
export function buildClosure(recipe: ClosureRecipe, env: ClosureEnv): Check {
  switch (recipe.t) {
    case 'metadata':
      if (!env.resource) throw new Error('a metadata check needs the resource');
      return metadataCheck(env.resource);
    case 'rule': {
      const { own, scope } = siteSchemas(env, recipe.site);
      const kind = getRule(recipe.spec.rule);
      if (!kind) throw new Error(`unknown rule kind ${recipe.spec.rule}`);
      // compiled without gates: a rule lifted by a gate reads the gate when it runs
      const compiled = kind.compile(recipe.spec, scope ?? own, { featureGates: {}, resolve: resolver(env.definitions) });
      if (!compiled) return () => {};
      const gate = typeof recipe.spec.unlessFeatureGate === 'string' ? recipe.spec.unlessFeatureGate : null;
      const check = compiled.check;
      return gate === null ? check : (v, old, ctx) => {
        if (ctx.featureGates[gate] !== true) check(v, old, ctx);
      };
    }
    case 'cel': {
      const { own, scope } = siteSchemas(env, recipe.site);
      const compiled = env.compiledCel ?? [];
      const fast = recipe.fast?.map((i) => (i >= 0 && i < compiled.length ? compiled[i] : null));
      const check = compileCelCheck(own, recipe.site.ptr, {
        cel: env.cel, definitions: env.definitions, celErrorValue: env.celErrorValue, scope, resolve: resolver(env.definitions),
        fast, verifyFast: env.verifyCompiledCel,
      });
      return check ?? (() => {});
    }
  }
}

