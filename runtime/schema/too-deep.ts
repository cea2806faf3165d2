// Input nested beyond what the validators can walk. They recurse along the schema, and only a
// schema that contains itself (JSONSchemaProps in a CustomResourceDefinition) lets a value lead them
// deeper than the schema: such validators take values nested at most MAX_RECURSIVE_NESTING levels,
// the same answer on every stack and every run (a walk that ran out of stack would depend on both).
// Upstream bounds nesting once, when it decodes a body (10,000 levels), and Go's stacks grow; a
// validator called with an object has no decoder in front of it, and V8's default stack holds about
// 1,000 levels of the CRD schema walk. The error names the field where the value enters the
// recursion on its deepest path (`spec.versions[0].schema.openAPIV3Schema` for a CRD schema nested
// 2,000 levels), or the root when no recursion is on it; found without recursion, so that it works
// where the validation could not, and cyclic values end (a cycle is the deepest path).
import type { FieldError, Schema } from './types.ts';
import { isStackOverflow, TOO_DEEP } from './run.ts';
import { PROP, INDEX, KEY } from './context.ts';
import { hasOwn, isObject } from './rules/util.ts';

const REF = /#\/(?:components\/schemas|definitions)\/([^/]+)$/;

/** A schema position with what its `$ref`s and compositions resolve to. */
interface Resolved {
  /** The schemas that apply here: the node, its $ref targets, its allOf/anyOf/oneOf branches. */
  schemas: Schema[];
  /** The definitions entered here. */
  defs: string[];
}

/** One position of a path through the schema and how the path names it there. */
interface Position {
  resolved: Resolved;
  field: string;
}

function resolve(s: Schema, definitions: Record<string, Schema>): Resolved {
  const schemas: Schema[] = [];
  const defs: string[] = [];
  const pending: Schema[] = [s];
  // bounded: a ref cycle or a composition that contains itself is followed no further
  for (let n = 0; pending.length > 0 && n < 256; n++) {
    const cur = pending.pop() as Schema;
    if (!isObject(cur) || schemas.includes(cur)) continue;
    schemas.push(cur);
    if (typeof cur.$ref === 'string') {
      const m = REF.exec(cur.$ref);
      const name = m ? decodeURIComponent(m[1]) : undefined;
      if (name !== undefined && hasOwn(definitions, name)) {
        defs.push(name);
        pending.push(definitions[name]);
      }
    }
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
      const list = cur[key];
      if (Array.isArray(list)) for (const b of list) pending.push(b as Schema);
    }
  }
  return { schemas, defs };
}

function joinPath(base: string, seg: string | number, kind: number): string {
  if (kind === PROP) return base === '' ? String(seg) : `${base}.${String(seg)}`;
  return `${base}[${String(seg)}]`;
}

/** The schema position of a child the validators walk into (properties, additionalProperties, items), or undefined. */
function childPosition(here: Position, seg: string | number, resolved: (s: Schema) => Resolved): Position | undefined {
  for (const s of here.resolved.schemas) {
    if (typeof seg === 'number') {
      if (isObject(s.items)) return { resolved: resolved(s.items as Schema), field: joinPath(here.field, seg, INDEX) };
      continue;
    }
    const props = isObject(s.properties) ? s.properties : undefined;
    if (props && hasOwn(props, seg) && isObject(props[seg])) return { resolved: resolved(props[seg] as Schema), field: joinPath(here.field, seg, PROP) };
    if (isObject(s.additionalProperties)) return { resolved: resolved(s.additionalProperties as Schema), field: joinPath(here.field, seg, KEY) };
  }
  return undefined;
}

/**
 * A path the validators walk (where the schema describes the value) through more than `max` levels
 * of objects and arrays, or one that comes back to a (value, schema) pair already on it (a cycle):
 * `deep` true; else the longest walked path met, `deep` false. A depth-first search over an explicit
 * stack that explores each pair once.
 */
function walkedPath(schema: Schema, definitions: Record<string, Schema>, value: object, max: number): { path: Position[]; deep: boolean } {
  const resolvedOf = new Map<Schema, Resolved>();
  const resolved = (s: Schema): Resolved => {
    let r = resolvedOf.get(s);
    if (!r) resolvedOf.set(s, (r = resolve(s, definitions)));
    return r;
  };
  interface Frame { v: object; at: Position; keys: string[] | null; next: number }
  const pairs = new Map<object, Map<Resolved, 'open' | 'done'>>();
  const stateOf = (v: object, r: Resolved): 'open' | 'done' | undefined => pairs.get(v)?.get(r);
  const setState = (v: object, r: Resolved, st: 'open' | 'done'): void => {
    let m = pairs.get(v);
    if (!m) pairs.set(v, (m = new Map()));
    m.set(r, st);
  };
  const root: Position = { resolved: resolved(schema), field: '' };
  const frames: Frame[] = [{ v: value, at: root, keys: Array.isArray(value) ? null : Object.keys(value), next: 0 }];
  setState(value, root.resolved, 'open');
  const path = (): Position[] => frames.map((f) => f.at);
  let longest: Position[] = [root];
  while (frames.length > 0) {
    const top = frames[frames.length - 1];
    const size = top.keys ? top.keys.length : (top.v as unknown[]).length;
    if (top.next >= size) {
      frames.pop();
      setState(top.v, top.at.resolved, 'done');
      continue;
    }
    const seg = top.keys ? top.keys[top.next] : top.next;
    top.next++;
    const child = (top.v as Record<string | number, unknown>)[seg];
    if (typeof child !== 'object' || child === null) continue;
    const at = childPosition(top.at, seg, resolved);
    if (!at) continue;
    const st = stateOf(child, at.resolved);
    if (st === 'open') return { path: [...path(), at], deep: true };
    if (st === 'done') continue;
    frames.push({ v: child, at, keys: Array.isArray(child) ? null : Object.keys(child), next: 0 });
    setState(child, at.resolved, 'open');
    if (frames.length > max) return { path: path(), deep: true };
    if (frames.length > longest.length) longest = path();
  }
  return { path: longest, deep: false };
}

/** The first position of a path that enters a definition the path enters again further down: where the recursion starts. */
function recursionEntry(path: Position[]): string {
  const lastEntry = new Map<string, number>();
  path.forEach((p, i) => p.resolved.defs.forEach((d) => lastEntry.set(d, i)));
  const entry = path.find((p, i) => p.resolved.defs.some((d) => (lastEntry.get(d) as number) > i));
  return entry ? entry.field : '';
}

/**
 * The field at which `value` enters the recursion of `schema` (within `definitions`) on a walked
 * path through more than MAX_RECURSIVE_NESTING levels or a cycle (else on the longest walked path);
 * '' when there is no recursion on it.
 */
export function tooDeepField(schema: Schema, definitions: Record<string, Schema>, value: unknown): string {
  if (typeof value !== 'object' || value === null) return '';
  return recursionEntry(walkedPath(schema, definitions, value, MAX_RECURSIVE_NESTING).path);
}

/**
 * How deeply a value validated against a schema that contains itself may nest (objects and arrays,
 * from the validated object): half of what the CRD schema walk reaches on V8's default stack before
 * any JIT (about 2,000: 1,000 schema levels of `properties`), the rest left to the caller's frames.
 */
export const MAX_RECURSIVE_NESTING = 1000;

/** Whether a value nests objects and arrays more than `max` levels deep (a cyclic one does). */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  try {
    return deeper(value, max);
  } catch (e) {
    if (!isStackOverflow(e)) throw e;
    return true; // out of stack on the way: deeper than this caller can walk
  }
}

function deeper(v: unknown, left: number): boolean {
  if (typeof v !== 'object' || v === null) return false;
  if (left === 0) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (deeper(v[i], left - 1)) return true;
    return false;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) if (deeper(o[k], left - 1)) return true;
  return false;
}

/** Whether a definition the schema reaches refers, through its $refs, to itself. */
export function schemaRecurses(schema: Schema, definitions: Record<string, Schema>): boolean {
  const refsOf = new Map<string, string[]>();
  const refsIn = (s: unknown): string[] => {
    const out: string[] = [];
    const pending: unknown[] = [s];
    const seen = new Set<object>(); // a schema given as objects may share or even contain itself
    while (pending.length > 0) {
      const cur = pending.pop();
      if (typeof cur !== 'object' || cur === null || seen.has(cur)) continue;
      seen.add(cur);
      if (Array.isArray(cur)) for (const x of cur) pending.push(x);
      else if (isObject(cur)) {
        for (const [k, v] of Object.entries(cur)) {
          if (k === '$ref' && typeof v === 'string') {
            const m = REF.exec(v);
            const name = m ? decodeURIComponent(m[1]) : undefined;
            if (name !== undefined && hasOwn(definitions, name)) out.push(name);
          } else if (typeof v === 'object' && v !== null && k !== 'default' && k !== 'example' && k !== 'enum') pending.push(v);
        }
      }
    }
    return out;
  };
  const defRefs = (name: string): string[] => {
    let r = refsOf.get(name);
    if (!r) refsOf.set(name, (r = refsIn(definitions[name])));
    return r;
  };
  // a depth-first search for a back edge, over the definitions the root reaches
  const state = new Map<string, 'open' | 'done'>();
  for (const start of refsIn(schema)) {
    if (state.has(start)) continue;
    const stack: { name: string; next: number }[] = [{ name: start, next: 0 }];
    state.set(start, 'open');
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      const refs = defRefs(top.name);
      if (top.next >= refs.length) {
        state.set(top.name, 'done');
        stack.pop();
        continue;
      }
      const to = refs[top.next++];
      const st = state.get(to);
      if (st === 'open') return true;
      if (st === undefined) {
        state.set(to, 'open');
        stack.push({ name: to, next: 0 });
      }
    }
  }
  return false;
}

/**
 * The nesting check of a validator: for a schema that contains itself, the error of a value nested
 * more than MAX_RECURSIVE_NESTING levels along a path the validators walk (at the field where the
 * recursion starts), else null; for any other schema, always null.
 */
export function nestingLimit(schema: Schema, definitions: Record<string, Schema>): (value: unknown) => FieldError | null {
  if (!schemaRecurses(schema, definitions)) return () => null;
  return (value) => {
    // cheap first: only a value deeper than the limit can have a walked path deeper than it
    if (!nestedDeeperThan(value, MAX_RECURSIVE_NESTING)) return null;
    const walked = walkedPath(schema, definitions, value as object, MAX_RECURSIVE_NESTING);
    return walked.deep ? { ...TOO_DEEP, field: recursionEntry(walked.path) } : null;
  };
}
