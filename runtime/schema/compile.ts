// The closure compiler: turns the schema tree (schema-tree.ts) into closures that validate, and
// defaults and prunes along the tree. Cheap to build, so CRD schemas and one-off checks (the CRD
// defaults of structural.ts) use it; codegen.ts generates JavaScript from the same tree for the
// built-in types, and codegen.test.ts holds the two to the same answers. Keyword errors use
// kube-openapi's wording as apiextensions-apiserver reports them.
import type { CompileOptions, CompiledValidator, FieldError, Schema } from './types.ts';
import { ValidationContext } from './context.ts';
import { fieldErr } from './errors.ts';
import { numberFormat, stringFormat } from './formats.ts';
import { validateEmbeddedResource } from './metadata.ts';
import { deepEqual, hasOwn, isObject } from './rules/util.ts';
import { applyDefaults, prune } from './defaults-prune.ts';
import { SchemaCompileError } from './compile-error.ts';
import { H, runeCount } from './codegen-runtime.ts';
import { compileTree, type Check, type SchemaTree, type TreeNode } from './schema-tree.ts';
import { isStackOverflow, TOO_DEEP } from './run.ts';
import { nestingLimit, tooDeepField } from './too-deep.ts';

export { SchemaCompileError };

/** A node's validator; children are called through their slot, so recursive definitions work. */
interface Slot {
  validate: Check;
}

const NOOP: Check = () => {};

const TYPE_PRED: Record<string, (v: unknown) => boolean> = {
  object: isObject,
  array: Array.isArray,
  string: (v) => typeof v === 'string',
  integer: (v) => typeof v === 'number' && Number.isInteger(v),
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  boolean: (v) => typeof v === 'boolean',
};

export function compileSchemaToClosures(schema: Schema, options: CompileOptions = {}): CompiledValidator {
  const tree = compileTree(schema, options);
  const slots: Slot[] = tree.nodes.map(() => ({ validate: NOOP }));
  for (const n of tree.nodes) slots[n.id].validate = nodeValidator(n, tree, slots);
  const root = slots[tree.root.id];
  const gates = options.featureGates ?? {};
  const celBudget = options.celCostBudget ?? Number.POSITIVE_INFINITY;
  // Input the walk cannot finish (nested beyond the stack, or cyclic where the schema recurses) is a field error, never a throw.
  const tooDeep = nestingLimit(schema, options.definitions ?? {});
  const run = (obj: unknown, old: unknown, update: boolean): FieldError[] => {
    const deep = tooDeep(obj);
    if (deep) return [deep];
    const ctx = new ValidationContext(update, gates);
    ctx.celBudget = celBudget;
    try {
      root.validate(obj, old, ctx);
    } catch (e) {
      if (!isStackOverflow(e)) throw e;
      ctx.errors.push({ ...TOO_DEEP, field: tooDeepField(schema, options.definitions ?? {}, obj) });
    }
    return ctx.errors;
  };
  return {
    validate: (obj: unknown): FieldError[] => run(obj, undefined, false),
    validateUpdate: (obj: unknown, old: unknown): FieldError[] => run(obj, old, true),
    applyDefaults(obj: unknown): void {
      applyDefaults(tree.root, obj);
    },
    prune(obj: unknown): string[] {
      const out: string[] = [];
      prune(tree.root, obj, '', true, tree.isResource, out);
      return out;
    },
  };
}

/** The rule and CEL closures of the tree, update-only ones guarded. */
function closure(tree: SchemaTree, fn: number, updateOnly = false): Check {
  const check = tree.closures[fn].fn;
  return updateOnly ? (v, o, ctx) => { if (ctx.update) check(v, o, ctx); } : check;
}

/** The checks a node's parent runs, with the value undefined, when the node's property is absent. */
function absentChecks(n: TreeNode, tree: SchemaTree): Check[] {
  return n.absent.map((a) => closure(tree, a.fn, a.updateOnly));
}

function nodeValidator(n: TreeNode, tree: SchemaTree, slots: Slot[]): Check {
  if (n.target && n.extra) {
    const target = slots[n.target.id];
    const extra = slots[n.extra.id];
    return (v, old, ctx) => {
      target.validate(v, old, ctx);
      extra.validate(v, old, ctx);
    };
  }
  if (n.empty) return NOOP;
  const checks: Check[] = [];
  if (n.enumValues) checks.push(enumCheck(n.enumValues));
  if (n.str.length) checks.push(stringChecks(n));
  if (n.num.length) checks.push(numberChecks(n));
  if (n.arr) checks.push(arrayCheck(n, slots));
  if (n.obj) checks.push(objectCheck(n, tree, slots));
  if (n.allOf) {
    const branches = n.allOf.map((b) => slots[b.id]);
    checks.push((v, old, ctx) => {
      for (const b of branches) b.validate(v, old, ctx);
    });
  }
  if (n.anyOf) checks.push(anyOfCheck(n.anyOf.map((b) => slots[b.id])));
  if (n.oneOf) checks.push(oneOfCheck(n.oneOf.map((b) => slots[b.id])));
  if (n.not) checks.push(notCheck(slots[n.not.id]));
  if (n.embedded) {
    checks.push((v, _old, ctx) => {
      if (isObject(v)) validateEmbeddedResource(v, ctx.path(), ctx.errors);
    });
  }
  if (n.meta >= 0) checks.push(closure(tree, n.meta));
  for (const r of n.rules) checks.push(closure(tree, r.fn, r.updateOnly));
  if (n.cel >= 0) checks.push(closure(tree, n.cel));
  return typed(n, checks);
}

/** The node's type check (and nullable) before its checks. */
function typed(n: TreeNode, checks: Check[]): Check {
  const nullable = n.nullable;
  const typeOk: ((v: unknown) => boolean) | null = n.intOrString
    ? (v) => typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v))
    : n.type ? TYPE_PRED[n.type] : null;
  const nChecks = checks.length;
  const c0 = checks[0];
  const label = n.typeLabel;
  if (!typeOk) {
    return nChecks === 0
      ? NOOP
      : (v, old, ctx) => {
          if (v === null && nullable) return;
          for (let i = 0; i < nChecks; i++) checks[i](v, old, ctx);
        };
  }
  if (nChecks === 0) {
    return (v, _old, ctx) => {
      if (v === null && nullable) return;
      if (!typeOk(v)) H.typeErr(ctx, ctx.path(), v, label);
    };
  }
  if (nChecks === 1) {
    return (v, old, ctx) => {
      if (v === null && nullable) return;
      if (!typeOk(v)) return H.typeErr(ctx, ctx.path(), v, label);
      c0(v, old, ctx);
    };
  }
  return (v, old, ctx) => {
    if (v === null && nullable) return;
    if (!typeOk(v)) return H.typeErr(ctx, ctx.path(), v, label);
    for (let i = 0; i < nChecks; i++) checks[i](v, old, ctx);
  };
}

function enumCheck(values: unknown[]): Check {
  const prim = new Set(values.filter((x) => typeof x !== 'object' || x === null));
  const complex = values.filter((x) => typeof x === 'object' && x !== null);
  const shown = values.map((x) => (typeof x === 'string' ? x : JSON.stringify(x)));
  return (v, _o, ctx) => {
    if (prim.has(v)) return;
    if (complex.length && typeof v === 'object' && complex.some((c) => deepEqual(c, v))) return;
    ctx.add(fieldErr.notSupported(ctx.path(), v, shown));
  };
}

function stringChecks(n: TreeNode): Check {
  const checks = n.str.map((c): ((v: string, ctx: ValidationContext) => void) => {
    switch (c.k) {
      case 'minLen':
        return (v, ctx) => {
          if (v.length < c.n || runeCount(v) < c.n) H.minLen(ctx, ctx.path(), v, c.n);
        };
      case 'maxLen':
        return (v, ctx) => {
          if (v.length > c.n && runeCount(v) > c.n) H.maxLen(ctx, ctx.path(), c.n);
        };
      case 'pattern':
        return (v, ctx) => {
          if (!c.re.test(v)) H.pattern(ctx, ctx.path(), v, c.pattern);
        };
      case 'format': {
        const ok = stringFormat(c.fname) as (v: string) => boolean; // the tree keeps known formats only
        return (v, ctx) => {
          if (!ok(v)) H.strFormat(ctx, ctx.path(), v, c.fname);
        };
      }
    }
  });
  return (v, _o, ctx) => {
    if (typeof v === 'string') for (const c of checks) c(v, ctx);
  };
}

function numberChecks(n: TreeNode): Check {
  const checks = n.num.map((c): ((v: number, ctx: ValidationContext) => void) => {
    switch (c.k) {
      case 'min':
        return (v, ctx) => {
          if (c.exc ? v <= c.n : v < c.n) H.minimum(ctx, ctx.path(), v, c.n, c.exc);
        };
      case 'max':
        return (v, ctx) => {
          if (c.exc ? v >= c.n : v > c.n) H.maximum(ctx, ctx.path(), v, c.n, c.exc);
        };
      case 'multiple':
        return (v, ctx) => {
          if (!H.isMultiple(v, c.f)) H.multipleOf(ctx, ctx.path(), v, c.f);
        };
      case 'format': {
        const ok = numberFormat(c.fname) as (v: number) => boolean; // the tree keeps known formats only
        return (v, ctx) => {
          if (!ok(v)) H.numFormat(ctx, ctx.path(), v, c.fname);
        };
      }
    }
  });
  return (v, _o, ctx) => {
    if (typeof v === 'number') for (const c of checks) c(v, ctx);
  };
}

function arrayCheck(n: TreeNode, slots: Slot[]): Check {
  const { minItems, maxItems, unique, isSet, mapKeys, oldMapKeys } = n.arr as NonNullable<TreeNode['arr']>;
  const items = n.items ? slots[n.items.id] : null;
  return (v, old, ctx) => {
    if (!Array.isArray(v)) return;
    if (items) {
      // On an update, an item of a list-map is compared with the old item of the same key.
      const oldByKey = ctx.update && oldMapKeys && Array.isArray(old) ? H.oldByKey(old, oldMapKeys) : null;
      for (let i = 0; i < v.length; i++) {
        ctx.pushIndex(i);
        items.validate(v[i], H.oldItem(oldByKey, v[i], oldMapKeys as string[]), ctx);
        ctx.pop();
      }
    }
    if (minItems >= 0 && v.length < minItems) H.minItems(ctx, ctx.path(), v.length, minItems);
    if (maxItems >= 0 && v.length > maxItems) H.tooMany(ctx, ctx.path(), v.length, maxItems);
    if (unique && !isSet && H.hasDuplicate(v)) H.notUnique(ctx, ctx.path());
    if (isSet && v.length > 1) H.setDupErr(ctx, ctx.path(), v);
    if (mapKeys && v.length > 1) H.mapDupErr(ctx, ctx.path(), v, mapKeys);
  };
}

function objectCheck(n: TreeNode, tree: SchemaTree, slots: Slot[]): Check {
  const { apFalse, required, minProps, maxProps, resource } = n.obj as NonNullable<TreeNode['obj']>;
  const props = n.props ? new Map([...n.props].map(([k, c]) => [k, slots[c.id]])) : null;
  const additional = n.additional ? slots[n.additional.id] : null;
  const absent = n.props ? [...n.props].filter(([, c]) => c.absent.length > 0).map(([k, c]) => [k, absentChecks(c, tree)] as const) : [];
  return (v, old, ctx) => {
    if (!isObject(v)) return;
    const oldObj = old !== undefined && isObject(old) ? old : undefined;
    let count = 0;
    for (const k in v) {
      count++;
      const child = props ? props.get(k) : undefined;
      if (child) {
        ctx.pushProp(k);
        child.validate(v[k], oldObj && hasOwn(oldObj, k) ? oldObj[k] : undefined, ctx);
        ctx.pop();
      } else if (additional) {
        ctx.pushKey(k);
        additional.validate(v[k], oldObj && hasOwn(oldObj, k) ? oldObj[k] : undefined, ctx);
        ctx.pop();
      } else if (apFalse && !(resource && (k === 'apiVersion' || k === 'kind' || k === 'metadata'))) {
        H.forbiddenProp(ctx, ctx.path(), k);
      }
    }
    for (const r of required) {
      if (hasOwn(v, r)) continue;
      ctx.pushProp(r);
      H.required(ctx, ctx.path());
      ctx.pop();
    }
    for (const [k, checks] of absent) {
      if (hasOwn(v, k)) continue;
      ctx.pushProp(k);
      const ov = oldObj && hasOwn(oldObj, k) ? oldObj[k] : undefined;
      for (const a of checks) a(undefined, ov, ctx);
      ctx.pop();
    }
    if (minProps >= 0 && count < minProps) H.minProps(ctx, ctx.path(), count, minProps);
    if (maxProps >= 0 && count > maxProps) H.tooMany(ctx, ctx.path(), count, maxProps);
  };
}

/** anyOf, oneOf and not through the generated code's helpers (branches called at the current depth). */
function branchFn(b: Slot): (x: unknown, o: unknown, c: ValidationContext) => void {
  return (x, o, c) => b.validate(x, o, c);
}

function anyOfCheck(branches: Slot[]): Check {
  const fns = branches.map(branchFn);
  return (v, old, ctx) => H.anyOf(ctx, v, old, ctx.depth, fns);
}

function oneOfCheck(branches: Slot[]): Check {
  const fns = branches.map(branchFn);
  return (v, old, ctx) => H.oneOf(ctx, v, old, ctx.depth, fns);
}

function notCheck(branch: Slot): Check {
  const fn = branchFn(branch);
  return (v, old, ctx) => H.not(ctx, v, old, ctx.depth, fn);
}
