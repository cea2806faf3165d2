// Structural defaulting and pruning over the schema tree, as upstream does them for CRDs and the
// built-in types' defaults: both validator builders (compile.ts, codegen.ts) use these.
import { deepCopy } from '../json/clone.ts';
import { hasOwn, isObject } from './rules/util.ts';

/**
 * What defaulting and pruning read of a schema node: the tree's nodes (schema-tree.ts), or the
 * structure a standalone validator links from its data (standalone.ts).
 */
export interface StructNode {
  props: Map<string, StructNode> | null;
  additional: StructNode | null;
  additionalAny: boolean;
  items: StructNode | null;
  preserve: boolean;
  embedded: boolean;
  /** The $ref target of a wrapper. */
  target: StructNode | null;
  /** The node's own keywords (a wrapper's, beside its $ref). */
  local: { default?: unknown; nullable?: boolean };
  hasDefaults: boolean;
  isDef: boolean;
  schema: { type?: string };
}

function joinKey(base: string, k: string, bracket: boolean): string {
  if (bracket) return `${base}[${k}]`;
  return base === '' ? k : `${base}.${k}`;
}


/** A $ref wrapper's structure is its target's. */
function structural(n: StructNode): StructNode {
  return n.target ?? n;
}
/** Upstream structural defaulting: fill absent (or non-nullable null) properties, then recurse. */
export function applyDefaults(n: StructNode, x: unknown): void {
  const s = structural(n);
  if (!s.hasDefaults) return;
  if (Array.isArray(x)) {
    const it = s.items;
    if (!it) return;
    for (let i = 0; i < x.length; i++) {
      if (x[i] === null && it.local.default !== undefined && it.local.nullable !== true) x[i] = deepCopy(it.local.default);
      applyDefaults(it, x[i]);
    }
    return;
  }
  if (!isObject(x)) return;
  if (s.props) {
    for (const [k, c] of s.props) {
      const d = c.local.default;
      if (d === undefined) continue;
      if (!hasOwn(x, k) || (x[k] === null && c.local.nullable !== true)) x[k] = deepCopy(d);
    }
  }
  for (const k of Object.keys(x)) {
    const c = s.props?.get(k) ?? s.additional;
    if (!c) continue;
    if (s.additional && c === s.additional && x[k] === null && c.local.default !== undefined && c.local.nullable !== true) x[k] = deepCopy(c.local.default);
    applyDefaults(c, x[k]);
  }
}
/** Whether pruning can change a value: only objects and lists hold fields to drop. */
function hasChildren(x: unknown): boolean {
  return typeof x === 'object' && x !== null;
}

/**
 * Upstream structural pruning; returns the dropped paths in `out`. Recurses once per nesting
 * level, and only into objects and lists, so a map of 100,000 strings builds no child paths.
 * With `dryRun` nothing is dropped: the paths are what pruning would drop (strict field validation).
 */
export function prune(n: StructNode, x: unknown, path: string, isRoot: boolean, isResource: boolean, out: string[], dryRun = false): void {
  const s = structural(n);
  if (Array.isArray(x)) {
    if (s.items) for (let i = 0; i < x.length; i++) if (hasChildren(x[i])) prune(s.items, x[i], `${path}[${i}]`, false, false, out, dryRun);
    return;
  }
  if (!isObject(x)) return;
  const resourceRoot = (isRoot && isResource) || s.embedded;
  const hasStructure = s.props !== null || s.additional !== null || s.additionalAny || s.schema.type === 'object';
  if (!hasStructure) return; // no object structure declared (untyped): keep as is
  for (const k of Object.keys(x)) {
    if (resourceRoot && (k === 'apiVersion' || k === 'kind')) continue;
    const c = s.props?.get(k);
    if (resourceRoot && k === 'metadata') {
      // keep ObjectMeta; prune it only when the schema describes it fully (a $ref to ObjectMeta)
      if (c && (c.target || c.isDef) && hasChildren(x[k])) prune(c, x[k], joinKey(path, k, false), false, false, out, dryRun);
      continue;
    }
    if (c) {
      if (hasChildren(x[k])) prune(c, x[k], joinKey(path, k, false), false, false, out, dryRun);
    } else if (s.additional) {
      if (hasChildren(x[k])) prune(s.additional, x[k], joinKey(path, k, true), false, false, out, dryRun);
    } else if (s.additionalAny || s.preserve) continue;
    else {
      if (!dryRun) delete x[k];
      out.push(joinKey(path, k, false));
    }
  }
}
