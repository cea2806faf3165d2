// The code-generating schema compiler: JavaScript generated from the schema tree (schema-tree.ts).
// Same contract and behaviour as compile.ts, which builds closures from the same tree: same errors
// in the same order, same defaulting and pruning (codegen.test.ts holds the two to it). Validation
// is JavaScript source generated per schema and turned into a function once:
//  - one function `f<id>(x, o, c, d)` per definition reached through `$ref` (so recursion works);
//    small non-recursive definitions are inlined at their use sites;
//  - straight-line type, enum, bound, length, pattern and format checks; a `for...in` loop over an
//    object's keys (dispatching on the key, so errors keep the object's key order), loops over items
//    and map values;
//  - no allocation on the success path: `x` is the value, `o` the old value (only passed where a
//    rule, CEL rule or metadata check below reads it), `c` the ValidationContext and `d` the depth of
//    `x`'s path on c.segs/c.kinds. A path segment is written there only before a call that may read
//    the path (a definition's function, a closure); inline checks know their trailing segments
//    statically and build the path string only when they report an error.
// Declarative rules, CEL rules and metadata checks stay closures the generated code calls (`R`),
// with helpers (`H`, codegen-runtime.ts) for error messages and the few non-trivial checks.
//
// The same generator writes the validators of out/validators ahead of time (codegen-module.ts: typed
// source for a module, constants as expressions, closures linked from recipes by standalone.ts); the
// definitions every kind reaches (ObjectMeta...) are generated once, in the shared module, and a
// kind's module calls them through `S`. A declarative rule whose closure surely reports nothing on a
// value (ruleGuard: an empty list, no finalizers, a plain positive quantity...) is not called for it,
// nor a CEL closure whose rules its module's compiled CEL (`C`, cel-aot.ts) all answer true.
//
// User data (property names, enum values, patterns, messages) never goes into the source raw: it
// goes in as JSON string literals or as entries of the constants array (`K`).
import type { CompileOptions, CompiledValidator, FieldError, RuleSpec, Schema } from './types.ts';
import { ValidationContext } from './context.ts';
import { SchemaCompileError } from './compile-error.ts';
import { H, type Helpers } from './codegen-runtime.ts';
import { applyDefaults, prune } from './defaults-prune.ts';
import { rootRunner, type RootFn } from './run.ts';
import { compileTree, type Check, type ClosureRef, type SchemaTree, type TreeNode } from './schema-tree.ts';

export type { ClosureRef };
export { SchemaCompileError };

/** Generated source, its constants and the closures it calls. */
export interface CompiledSource {
  /**
   * The body of a function of (K, R, H): K the constants, R the closures, H the helpers of
   * codegen-runtime.ts. It returns the root validator `(x, o, c, d) => void`.
   */
  source: string;
  constants: unknown[];
  closures: ClosureRef[];
}

// ---------------------------------------------------------------------------------------------
// Code generation

/** A path segment not yet written to the context's stack: a property (0), index (1) or key (2). */
interface Seg { t: 0 | 1 | 2; code: string }
/** Where the value is: `base + off` segments on the stack, then `pend` segments known statically. */
interface PathState { base: string; off: number; pend: Seg[] }

function depthCode(p: PathState): string {
  return p.off === 0 ? p.base : `${p.base}+${p.off}`;
}

function pathCode(p: PathState): string {
  let s = `c.pathAt(${depthCode(p)})`;
  for (const g of p.pend) s = g.t === 0 ? `H.pj(${s},${g.code})` : `H.pb(${s},${g.code})`;
  return s;
}

function child(p: PathState, seg: Seg): PathState {
  return { base: p.base, off: p.off, pend: [...p.pend, seg] };
}

/** A JS literal for a JSON-safe primitive, or null. */
function literal(v: unknown): string | null {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'boolean') return String(v);
  if (v === null) return 'null';
  if (typeof v === 'number' && Number.isFinite(v)) return Object.is(v, -0) ? '(-0)' : `(${String(v)})`;
  return null;
}

const TYPE_CODE: Record<string, (x: string) => string> = {
  object: (x) => `(typeof ${x} === "object" && ${x} !== null && !Array.isArray(${x}))`,
  array: (x) => `Array.isArray(${x})`,
  string: (x) => `(typeof ${x} === "string")`,
  integer: (x) => `(typeof ${x} === "number" && Number.isInteger(${x}))`,
  number: (x) => `(typeof ${x} === "number" && Number.isFinite(${x}))`,
  boolean: (x) => `(typeof ${x} === "boolean")`,
};

/** Definitions up to this many nodes (and not recursive) are inlined at their use sites. */
const INLINE_LIMIT = 40;

/**
 * Definitions whose functions live in a module shared by several kinds (out/validators/shared.ts):
 * a kind's module calls them through `S` (the shared module's functions by definition name), the
 * shared module itself (`local`) declares them.
 */
export interface SharedDefinitions {
  names: ReadonlySet<string>;
  local: boolean;
}

export class Generator {
  readonly consts: unknown[] = [];
  private readonly prelude: string[] = [];
  private readonly fns: string[] = [];
  /** Branch lists of anyOf/oneOf, bound after the function declarations. */
  private readonly fnsAfter: string[] = [];
  private readonly fnNames = new Map<TreeNode, string>();
  private readonly stackMemo = new Map<TreeNode, boolean>();
  private readonly inlineMemo = new Map<TreeNode, boolean>();
  private tmp = 0;

  /**
   * With `typed`, the source is TypeScript for a module (codegen-module.ts): values typed `any` (JSON
   * of any shape, checked by the code itself), and no constant that needs the K array.
   */
  private readonly celGuardNames = new Map<string, string>();

  /**
   * `celGuards` (modules only): by CEL closure index, the compiled CEL rules (`C`, cel-aot.ts) that
   * decide all its rules; the closure is called only where one of them does not answer true.
   */
  constructor(
    private readonly tree: SchemaTree,
    private readonly typed = false,
    private readonly shared: SharedDefinitions | null = null,
    private readonly celGuards: ReadonlyMap<number, readonly number[]> | null = null,
  ) {}

  private readonly syntaxChecks = new Map<string, string>();
  private readonly keysChecks = new Map<string, string>();

  /** The binding of a syntax's fast check (fastsyntax.ts), one per syntax. */
  private syntaxCheck(syntax: string): string {
    let name = this.syntaxChecks.get(syntax);
    if (name) return name;
    name = this.v('ok');
    this.syntaxChecks.set(syntax, name);
    this.raw(`const ${name} = H.fastSyntax[${JSON.stringify(syntax)}]${this.bang};`);
    return name;
  }

  /** A function answering whether every own key of an object has a syntax: a loop that calls one check (inlined). */
  private keysCheck(syntax: string): string {
    let name = this.keysChecks.get(syntax);
    if (name) return name;
    const ok = this.syntaxCheck(syntax);
    name = this.v('kok');
    this.keysChecks.set(syntax, name);
    const params = this.typed ? '(o: any): boolean' : '(o)';
    this.raw(`function ${name}${params} {\nfor (const k in o) if (hop.call(o, k) && !${ok}(k)) return false;\nreturn true;\n}`);
    return name;
  }

  /** The function answering true when every compiled rule of a CEL closure does (a throw or BAIL is false). */
  private celGuard(fast: readonly number[]): string {
    const key = fast.join(',');
    let name = this.celGuardNames.get(key);
    if (name) return name;
    name = this.v('cg');
    this.celGuardNames.set(key, name);
    const all = fast.map((i) => `C[${i}](s, undefined) === true`).join(' && ');
    const params = this.typed ? '(s: any): boolean' : '(s)';
    this.raw(`function ${name}${params} {\ntry {\nreturn ${all};\n} catch {\nreturn false;\n}\n}`);
    return name;
  }

  /** Whether a node is a definition of the shared module. */
  private isShared(n: TreeNode): boolean {
    return n.isDef && n.defName !== null && this.shared !== null && this.shared.names.has(n.defName);
  }

  /** The binding of a shared definition's function in a kind's module (`S` is the shared module's). */
  private sharedRef(n: TreeNode): string {
    let name = this.fnNames.get(n);
    if (name) return name;
    name = `s${n.id}`;
    this.fnNames.set(n, name);
    this.raw(`const ${name} = S[${JSON.stringify(n.defName)}]${this.bang};`);
    return name;
  }

  /** The type annotation of a JSON value's variable. */
  private get anyT(): string {
    return this.typed ? ': any' : '';
  }

  /** Non-null assertion on a helper lookup that the tree made sure succeeds. */
  private get bang(): string {
    return this.typed ? '!' : '';
  }

  private v(prefix: string): string {
    return `${prefix}${this.tmp++}`;
  }

  /** A constant bound once in the prelude; JSON-safe values are written as literals. */
  constExpr(value: unknown, asLiteral = true): string {
    const name = this.v('k');
    let json: string | undefined;
    if (asLiteral) {
      try {
        json = JSON.stringify(value);
        if (json !== undefined && !deepJsonSafe(value)) json = undefined;
      } catch {
        json = undefined;
      }
    }
    if (json !== undefined) this.prelude.push(`const ${name} = ${json};`);
    else if (this.typed) this.prelude.push(`const ${name} = ${moduleConstant(value)};`);
    else {
      const i = this.consts.push(value) - 1;
      this.prelude.push(`const ${name} = K[${i}];`);
    }
    return name;
  }

  private raw(line: string): void {
    this.prelude.push(line);
  }

  /** Whether a definition is inlined at its use sites. */
  private inlineDef(n: TreeNode): boolean {
    const m = this.inlineMemo.get(n);
    if (m !== undefined) return m;
    // a small definition that reaches no definition recursively is inlined; the others are functions
    this.inlineMemo.set(n, false);
    const ok = n.isDef && n !== this.tree.root && !this.isShared(n) && this.inlineSize(n, new Set(), 0) <= INLINE_LIMIT;
    this.inlineMemo.set(n, ok);
    return ok;
  }

  /** The number of nodes a definition's inline code covers (INLINE_LIMIT + 1 when too many or recursive). */
  private inlineSize(n: TreeNode, path: Set<TreeNode>, acc: number): number {
    if (path.has(n) || acc > INLINE_LIMIT) return INLINE_LIMIT + 1;
    if (n.anyOf || n.oneOf || n.not) return INLINE_LIMIT + 1; // branches are functions anyway
    path.add(n);
    let size = acc + 1;
    const kids: (TreeNode | null)[] = [n.target, n.extra, n.items, n.additional, ...(n.props?.values() ?? []), ...(n.allOf ?? [])];
    for (const k of kids) {
      if (k === null) continue;
      if (this.isShared(k)) { size++; continue; } // a call
      size = this.inlineSize(k, path, size);
      if (size > INLINE_LIMIT) break;
    }
    path.delete(n);
    return size;
  }

  /** Whether a node's inline code calls something that reads the path stack. */
  private needsStack(n: TreeNode): boolean {
    const m = this.stackMemo.get(n);
    if (m !== undefined) return m;
    this.stackMemo.set(n, true); // cycles only go through definitions (called, so true anyway)
    let r: boolean;
    if (n.isDef && !this.inlineDef(n)) r = true;
    else if (n.target) r = true;
    else {
      r = n.rules.length > 0 || n.cel >= 0 || n.meta >= 0 || n.embedded || n.anyOf !== null || n.oneOf !== null || n.not !== null;
      if (!r && n.props) for (const c of n.props.values()) if (this.needsStack(c) || c.absent.length > 0) { r = true; break; }
      if (!r && n.additional) r = this.needsStack(n.additional);
      if (!r && n.items) r = this.needsStack(n.items);
      if (!r && n.allOf) r = n.allOf.some((b) => this.needsStack(b));
    }
    this.stackMemo.set(n, r);
    return r;
  }

  /** The function validating a node `(x, o, c, d)`. */
  fnFor(n: TreeNode): string {
    let name = this.fnNames.get(n);
    if (name) return name;
    name = `f${n.id}`;
    this.fnNames.set(n, name);
    const out: string[] = [];
    this.body(n, 'x', 'o', { base: 'd', off: 0, pend: [] }, out);
    const label = n.defName !== null ? ` // ${n.defName.replace(/[^A-Za-z0-9_.-]/g, '_')}` : '';
    const params = this.typed ? '(x: any, o: any, c: ValidationContext, d: number): void' : '(x, o, c, d)';
    this.fns.push(`function ${name}${params} {${label}\n${out.join('\n')}\n}`);
    return name;
  }

  private materialize(p: PathState, out: string[]): PathState {
    if (p.pend.length === 0) return p;
    let off = p.off;
    for (const g of p.pend) {
      const at = off === 0 ? p.base : `${p.base}+${off}`;
      out.push(`c.segs[${at}] = ${g.code}; c.kinds[${at}] = ${g.t};`);
      off++;
    }
    return { base: p.base, off, pend: [] };
  }

  /** Emits the validation of the value in `x` (an identifier) by node `n`. */
  node(n: TreeNode, x: string, o: string, p: PathState, out: string[]): void {
    if (n.isDef && !this.inlineDef(n)) {
      const f = this.isShared(n) && !this.shared!.local ? this.sharedRef(n) : this.fnFor(n);
      const q = this.materialize(p, out);
      out.push(`${f}(${x}, ${n.needsOld ? o : 'undefined'}, c, ${depthCode(q)});`);
      return;
    }
    this.body(n, x, o, p, out);
  }

  /** Emits a node's own checks (never a call to its own function). */
  body(n: TreeNode, x: string, o: string, p: PathState, out: string[]): void {
    if (n.empty) return;
    if (this.needsStack(n)) p = this.materialize(p, out);
    if (n.target) {
      this.node(n.target, x, o, p, out);
      this.node(n.extra!, x, o, p, out);
      return;
    }
    const checks: string[] = [];
    this.checks(n, x, o, p, checks);
    const typeCode = n.intOrString
      ? `(typeof ${x} === "string" || (typeof ${x} === "number" && Number.isInteger(${x})))`
      : n.type ? TYPE_CODE[n.type](x) : null;
    const lines: string[] = [];
    if (typeCode) {
      lines.push(`if (!${typeCode}) H.typeErr(c, ${pathCode(p)}, ${x}, ${JSON.stringify(n.typeLabel)});`);
      if (checks.length) lines.push(`else {`, ...checks, `}`);
    } else {
      lines.push(...checks);
    }
    if (lines.length === 0) return;
    if (n.nullable) out.push(`if (${x} !== null) {`, ...lines, `}`);
    else out.push(...lines);
  }

  private checks(n: TreeNode, x: string, o: string, p: PathState, out: string[]): void {
    const t = n.intOrString ? null : n.type;
    // ---- enum
    if (n.enumValues) {
      const vals = n.enumValues;
      const prim = vals.filter((v) => typeof v !== 'object' || v === null);
      const complex = vals.filter((v) => typeof v === 'object' && v !== null);
      // fieldErr.notSupported's message tail, computed once
      const shownList = vals.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
      const shown = this.constExpr(shownList.length ? ': supported values: ' + shownList.map((v) => JSON.stringify(v)).join(', ') : '');
      const conds: string[] = [];
      const lits = prim.map(literal);
      if (lits.every((l) => l !== null) && prim.length <= 16) {
        for (const l of lits) conds.push(`${x} === ${l}`);
      } else {
        const set = this.constExpr(new Set(prim), false);
        conds.push(`${set}.has(${x})`);
      }
      if (complex.length) {
        const cx = this.constExpr(complex, false);
        conds.push(`(typeof ${x} === "object" && ${cx}.some((e) => H.deepEqual(e, ${x})))`);
      }
      out.push(`if (!(${conds.length ? conds.join(' || ') : 'false'})) H.enumErr(c, ${pathCode(p)}, ${x}, ${shown});`);
    }
    // ---- strings
    if (n.str.length) {
      const lines: string[] = [];
      for (const s of n.str) {
        switch (s.k) {
          case 'minLen':
            lines.push(`if (${x}.length < ${2 * s.n} && H.runeCount(${x}) < ${s.n}) H.minLen(c, ${pathCode(p)}, ${x}, ${s.n});`);
            break;
          case 'maxLen':
            lines.push(`if (${x}.length > ${s.n} && H.runeCount(${x}) > ${s.n}) H.maxLen(c, ${pathCode(p)}, ${s.n});`);
            break;
          case 'pattern': {
            // the RE2 matcher of the tree (runtime/schema/pattern.ts), passed as a constant: never JS RegExp
            const re = this.constExpr(s.re, false);
            lines.push(`if (!${re}.test(${x})) H.pattern(c, ${pathCode(p)}, ${x}, ${this.constExpr(s.pattern)});`);
            break;
          }
          case 'format': {
            const f = this.v('sf');
            this.raw(`const ${f} = H.stringFormat(${JSON.stringify(s.fname)})${this.bang};`);
            lines.push(`if (!${f}(${x})) H.strFormat(c, ${pathCode(p)}, ${x}, ${this.constExpr(s.fname)});`);
            break;
          }
        }
      }
      if (t === 'string') out.push(...lines);
      else out.push(`if (typeof ${x} === "string") {`, ...lines, `}`);
    }
    // ---- numbers
    if (n.num.length) {
      const lines: string[] = [];
      for (const s of n.num) {
        switch (s.k) {
          case 'min':
            lines.push(`if (${x} ${s.exc ? '<=' : '<'} ${literal(s.n)}) H.minimum(c, ${pathCode(p)}, ${x}, ${literal(s.n)}, ${s.exc});`);
            break;
          case 'max':
            lines.push(`if (${x} ${s.exc ? '>=' : '>'} ${literal(s.n)}) H.maximum(c, ${pathCode(p)}, ${x}, ${literal(s.n)}, ${s.exc});`);
            break;
          case 'multiple':
            lines.push(`if (!H.isMultiple(${x}, ${literal(s.f)})) H.multipleOf(c, ${pathCode(p)}, ${x}, ${literal(s.f)});`);
            break;
          case 'format': {
            const f = this.v('nf');
            this.raw(`const ${f} = H.numberFormat(${JSON.stringify(s.fname)})${this.bang};`);
            lines.push(`if (!${f}(${x})) H.numFormat(c, ${pathCode(p)}, ${x}, ${this.constExpr(s.fname)});`);
            break;
          }
        }
      }
      if (t === 'number' || t === 'integer') out.push(...lines);
      else out.push(`if (typeof ${x} === "number") {`, ...lines, `}`);
    }
    // ---- arrays
    if (n.arr) this.arrayChecks(n, x, o, p, t === 'array', out);
    // ---- objects
    if (n.obj) this.objectChecks(n, x, o, p, t === 'object', out);
    // ---- composition
    if (n.allOf) for (const b of n.allOf) this.node(b, x, o, p, out);
    const q = p; // materialized by body() when any of the following is present
    if (n.anyOf) {
      const bs = this.v('B');
      this.fnsAfter.push(`const ${bs} = [${n.anyOf.map((b) => this.fnFor(b)).join(', ')}];`);
      out.push(`H.anyOf(c, ${x}, ${o}, ${depthCode(q)}, ${bs});`);
    }
    if (n.oneOf) {
      const bs = this.v('B');
      this.fnsAfter.push(`const ${bs} = [${n.oneOf.map((b) => this.fnFor(b)).join(', ')}];`);
      out.push(`H.oneOf(c, ${x}, ${o}, ${depthCode(q)}, ${bs});`);
    }
    if (n.not) out.push(`H.not(c, ${x}, ${o}, ${depthCode(q)}, ${this.fnFor(n.not)});`);
    // ---- embedded resources and resource metadata
    if (n.embedded) {
      const call = `H.embedded(${x}, c.pathAt(${depthCode(q)}), c.errors);`;
      out.push(t === 'object' ? call : `if (H.isObject(${x})) ${call}`);
    }
    if (n.meta >= 0) out.push(`c.len = ${depthCode(q)}; R[${n.meta}](${x}, ${o}, c);`);
    // ---- rules and CEL
    for (const r of n.rules) {
      let call = `c.len = ${depthCode(q)}; R[${r.fn}](${x}, ${o}, c);`;
      const guard = this.ruleGuard(r.fn, x);
      if (guard) call = `if (!${guard}) { ${call} }`;
      else if (r.fast) {
        call = r.fast.on === 'value'
          ? `if (typeof ${x} !== "string" || !${this.syntaxCheck(r.fast.syntax)}(${x})) { ${call} }`
          : `if (!H.isObject(${x}) || !${this.keysCheck(r.fast.syntax)}(${x})) { ${call} }`;
      }
      out.push(r.updateOnly ? `if (c.update) { ${call} }` : call);
    }
    if (n.cel >= 0) {
      const call = `c.len = ${depthCode(q)}; R[${n.cel}](${x}, ${o}, c);`;
      const fast = this.celGuards?.get(n.cel);
      // a finite CEL budget (custom resources) is charged by the closure, which must run then
      out.push(fast ? `if (c.celBudget !== Infinity || !${this.celGuard(fast)}(${x})) { ${call} }` : call);
    }
  }


  /** The guard of a rule closure (ruleGuard), or null for a closure that is not a declarative rule. */
  private ruleGuard(fn: number, x: string): string | null {
    const recipe = this.tree.closures[fn]?.recipe;
    return recipe && recipe.t === 'rule' ? ruleGuard(recipe.spec, x, (v) => this.constExpr(v)) : null;
  }

  private arrayChecks(n: TreeNode, x: string, o: string, p: PathState, typed: boolean, out: string[]): void {
    const a = n.arr!;
    const lines: string[] = [];
    const items = n.items;
    if (items && !items.empty) {
      const i = this.v('i');
      const y = this.v('y');
      const ip = child(p, { t: 1, code: i });
      let oi = 'undefined';
      if (a.oldMapKeys && items.needsOld) {
        const keys = this.constExpr(a.oldMapKeys);
        const ob = this.v('ob');
        lines.push(`const ${ob} = c.update && Array.isArray(${o}) ? H.oldByKey(${o}, ${keys}) : null;`);
        oi = this.v('oi');
        const inner: string[] = [];
        inner.push(`const ${oi}${this.anyT} = H.oldItem(${ob}, ${y}, ${keys});`);
        this.node(items, y, oi, ip, inner);
        lines.push(`for (let ${i} = 0; ${i} < ${x}.length; ${i}++) {`, `const ${y}${this.anyT} = ${x}[${i}];`, ...inner, `}`);
      } else {
        const inner: string[] = [];
        this.node(items, y, 'undefined', ip, inner);
        if (inner.length) lines.push(`for (let ${i} = 0; ${i} < ${x}.length; ${i}++) {`, `const ${y}${this.anyT} = ${x}[${i}];`, ...inner, `}`);
      }
    }
    if (a.minItems >= 0) lines.push(`if (${x}.length < ${literal(a.minItems)}) H.minItems(c, ${pathCode(p)}, ${x}.length, ${literal(a.minItems)});`);
    if (a.maxItems >= 0) lines.push(`if (${x}.length > ${literal(a.maxItems)}) H.tooMany(c, ${pathCode(p)}, ${x}.length, ${literal(a.maxItems)});`);
    if (a.unique && !a.isSet) lines.push(`if (H.hasDuplicate(${x})) H.notUnique(c, ${pathCode(p)});`);
    if (a.isSet) lines.push(`if (${x}.length > 1 && H.setHasDup(${x})) H.setDupErr(c, ${pathCode(p)}, ${x});`);
    if (a.mapKeys) {
      const keys = this.constExpr(a.mapKeys);
      lines.push(`if (${x}.length > 1 && H.mapHasDup(${x}, ${keys})) H.mapDupErr(c, ${pathCode(p)}, ${x}, ${keys});`);
    }
    if (!lines.length) return;
    if (typed) out.push(...lines);
    else out.push(`if (Array.isArray(${x})) {`, ...lines, `}`);
  }

  private objectChecks(n: TreeNode, x: string, o: string, p: PathState, typed: boolean, out: string[]): void {
    const ob = n.obj!;
    const lines: string[] = [];
    const props = n.props;
    const additional = n.additional && !n.additional.empty ? n.additional : null;
    const counting = ob.minProps >= 0 || ob.maxProps >= 0;
    const cnt = counting ? this.v('n') : '';
    // the old object, for children that read it
    const kidsOld = (props && [...props.values()].some((c) => c.needsOld)) || (additional?.needsOld ?? false);
    const oo = kidsOld ? this.v('oo') : '';
    if (kidsOld) lines.push(`const ${oo}${this.anyT} = ${o} !== undefined && H.isObject(${o}) ? ${o} : undefined;`);
    const oldOf = (kc: TreeNode, key: string): string => (kc.needsOld ? `(${oo} !== undefined && hop.call(${oo}, ${key}) ? ${oo}[${key}] : undefined)` : 'undefined');
    // the loop over the object's keys
    const k = this.v('k');
    const cases: string[] = [];
    const caseBodies = new Map<string, string[]>();
    let anyCase = false;
    if (props) {
      for (const [name, kc] of props) {
        const lit = JSON.stringify(name);
        const body: string[] = [];
        if (!kc.empty) {
          const y = this.v('y');
          const inner: string[] = [];
          const ov = kc.needsOld ? this.v('ov') : 'undefined';
          this.node(kc, y, ov, child(p, { t: 0, code: lit }), inner);
          if (inner.length) {
            body.push(`const ${y}${this.anyT} = ${x}[${k}];`);
            if (kc.needsOld) body.push(`const ${ov}${this.anyT} = ${oldOf(kc, k)};`);
            body.push(...inner);
            anyCase = true;
          }
        }
        cases.push(`case ${lit}: {`, ...body, `break; }`);
        caseBodies.set(name, body);
      }
    }
    const dflt: string[] = [];
    if (additional) {
      const y = this.v('y');
      const ov = additional.needsOld ? this.v('ov') : 'undefined';
      const inner: string[] = [];
      this.node(additional, y, ov, child(p, { t: 2, code: k }), inner);
      if (inner.length) {
        dflt.push(`const ${y}${this.anyT} = ${x}[${k}];`);
        if (additional.needsOld) dflt.push(`const ${ov}${this.anyT} = ${oldOf(additional, k)};`);
        dflt.push(...inner);
      }
    } else if (ob.apFalse && !n.additionalAny) {
      const err = `H.forbiddenProp(c, ${pathCode(p)}, ${k});`;
      dflt.push(ob.resource ? `if (${k} !== "apiVersion" && ${k} !== "kind" && ${k} !== "metadata") ${err}` : err);
    }
    if (anyCase || dflt.length || counting) {
      if (counting) lines.push(`let ${cnt} = 0;`);
      lines.push(`for (const ${k} in ${x}) {`);
      if (counting) lines.push(`${cnt}++;`);
      if (anyCase || dflt.length) {
        if (cases.length) {
          if (!anyCase) {
            // only the default does something: skip known names
            lines.push(`switch (${k}) {`, ...[...props!.keys()].map((name) => `case ${JSON.stringify(name)}:`), `break;`, `default: {`, ...dflt, `}`, `}`);
          } else if (!dflt.length && props!.size > 4) {
            // dispatch on the key's length first: one or two string comparisons per key
            const byLen = new Map<number, string[]>();
            for (const name of props!.keys()) {
              const l = byLen.get(name.length) ?? [];
              l.push(name);
              byLen.set(name.length, l);
            }
            lines.push(`switch (${k}.length) {`);
            for (const [len, names] of byLen) {
              lines.push(`case ${len}:`);
              names.forEach((name, i) => {
                const body = caseBodies.get(name)!;
                lines.push(`${i ? 'else ' : ''}if (${k} === ${JSON.stringify(name)}) {`, ...body, `}`);
              });
              lines.push(`break;`);
            }
            lines.push(`}`);
          } else {
            lines.push(`switch (${k}) {`, ...cases, ...(dflt.length ? [`default: {`, ...dflt, `}`] : []), `}`);
          }
        } else {
          lines.push(...dflt);
        }
      }
      lines.push(`}`);
    }
    for (const r of ob.required) lines.push(`if (!hop.call(${x}, ${JSON.stringify(r)})) H.required(c, ${pathCode(child(p, { t: 0, code: JSON.stringify(r) }))});`);
    if (props) {
      for (const [name, kc] of props) {
        if (kc.absent.length === 0) continue;
        const lit = JSON.stringify(name);
        const q = this.materialize(child(p, { t: 0, code: lit }), []);
        const inner: string[] = [];
        this.materialize(child(p, { t: 0, code: lit }), inner);
        const ov = this.v('ov');
        const oldValue = o === 'undefined' ? 'undefined' : `${o} !== undefined && H.isObject(${o}) && hop.call(${o}, ${lit}) ? ${o}[${lit}] : undefined`;
        inner.push(`const ${ov}${this.anyT} = ${oldValue};`);
        for (const a of kc.absent) {
          const call = `c.len = ${depthCode(q)}; R[${a.fn}](undefined, ${ov}, c);`;
          inner.push(a.updateOnly ? `if (c.update) { ${call} }` : call);
        }
        lines.push(`if (!hop.call(${x}, ${lit})) {`, ...inner, `}`);
      }
    }
    if (ob.minProps >= 0) lines.push(`if (${cnt} < ${literal(ob.minProps)}) H.minProps(c, ${pathCode(p)}, ${cnt}, ${literal(ob.minProps)});`);
    if (ob.maxProps >= 0) lines.push(`if (${cnt} > ${literal(ob.maxProps)}) H.tooMany(c, ${pathCode(p)}, ${cnt}, ${literal(ob.maxProps)});`);
    if (!lines.length) return;
    if (typed) out.push(...lines);
    else out.push(`if (H.isObject(${x})) {`, ...lines, `}`);
  }

  source(): string {
    const r = this.tree.root;
    // a root `$ref` without local keywords is its target
    const root = r.target && r.extra!.empty && !(r.target.isDef && this.inlineDef(r.target)) ? this.fnFor(r.target) : this.fnFor(r);
    const head = this.typed ? [] : ['"use strict";'];
    return [...head, 'const hop = H.hop;', ...this.prelude, ...this.fns, ...this.fnsAfter, `return ${root};`].join('\n');
  }

  /** The shared module's source: its definitions' functions, returned by name (sorted). */
  sharedSource(): string {
    const names = [...(this.shared?.names ?? [])].sort();
    const byName = new Map(this.tree.nodes.filter((n) => n.isDef).map((n) => [n.defName, n]));
    const entries = names.map((name) => {
      const n = byName.get(name);
      if (!n) throw new Error(`shared definition ${name} is not in the tree`);
      return `${JSON.stringify(name)}: ${this.fnFor(n)},`;
    });
    return ['const hop = H.hop;', ...this.prelude, ...this.fns, ...this.fnsAfter, `return {`, ...entries, `};`].join('\n');
  }
}

/**
 * A cheap condition (JavaScript over `H` and the value `x`) under which a declarative rule's closure
 * surely reports nothing, so that valid input does not call it: the rule kinds that only look at a
 * non-empty value, at lists of two items or more, at finalizers, at keys of a map when a field has
 * a value, at fields set together, at quantities below zero, at label maps, at sizes far below their
 * limit. Null for the others (rule-guards.test.ts holds each to its rule). `constant` names a
 * constant value (bound once in a generated module; inline JSON by default).
 */
export function ruleGuard(spec: RuleSpec, x: string, constant: (v: unknown) => string = (v) => JSON.stringify(v)): string | null {
  switch (spec.rule) {
    case 'nonEmpty': return `H.surelyNonEmpty(${x})`;
    case 'uniqueBy': return typeof spec.key === 'string' ? `H.distinctBy(${x}, ${JSON.stringify(spec.key)})` : `H.fewerThanTwo(${x})`;
    case 'distinct': return `H.distinctBy(${x}, ${typeof spec.key === 'string' ? JSON.stringify(spec.key) : 'null'})`;
    case 'exclusiveItem': return `H.fewerThanTwo(${x})`;
    case 'equalWhenBothSet': {
      const fields = spec.fields;
      if (!Array.isArray(fields) || fields.length !== 2 || !fields.every((f) => typeof f === 'string')) return null;
      return `(H.unsetAt(${x}, ${JSON.stringify(fields[0])}) || H.unsetAt(${x}, ${JSON.stringify(fields[1])}))`;
    }
    case 'quantityRange': {
      // plain quantities are never negative (basic); bounds of zero decide by the sign alone
      const { exclusiveMinimum, minimum, maximum } = spec;
      if (maximum !== undefined) return null;
      const zero = (b: unknown) => b === 0 || b === '0';
      if (exclusiveMinimum !== undefined && !zero(exclusiveMinimum)) return null;
      if (minimum !== undefined && !zero(minimum)) return null;
      return exclusiveMinimum !== undefined ? `(H.plainQuantitySign(${x}) > 0)` : `(H.plainQuantitySign(${x}) >= 0)`;
    }
    case 'exactlyOneOf':
    case 'atMostOneOf': {
      const fields = spec.fields;
      if (!Array.isArray(fields) || !fields.every((f) => typeof f === 'string')) return null;
      return `(H.countSet(${x}, ${constant(fields)}) ${spec.rule === 'exactlyOneOf' ? '===' : '<='} 1)`;
    }
    case 'labelMap': return `H.labelMapOk(${x})`;
    case 'resourceWildcards': return `H.noItemContains(${x}, "*")`;
    case 'disjointKeys': {
      const maps = spec.maps;
      if (!Array.isArray(maps) || maps.length !== 2 || !maps.every((f) => typeof f === 'string')) return null;
      return `(!H.isObject(H.at(${x}, ${JSON.stringify(maps[0])})) || !H.isObject(H.at(${x}, ${JSON.stringify(maps[1])})))`;
    }
    case 'maxTotalBytes': {
      const { fields, limit } = spec;
      if (typeof limit !== 'number' || (fields !== undefined && (!Array.isArray(fields) || !fields.every((f) => typeof f === 'string')))) return null;
      return `H.surelyWithin(${x}, ${fields === undefined ? 'null' : constant(fields)}, ${limit}, ${spec.countKeys === true})`;
    }
    case 'itemsAtParent': {
      const syntax = spec.syntax === undefined ? 'null' : typeof spec.syntax === 'string' ? JSON.stringify(spec.syntax) : null;
      return syntax === null ? null : `H.itemsOk(${x}, ${syntax}, ${spec.nonEmpty === true}, ${spec.distinct === true})`;
    }
    case 'standardFinalizers': return `H.noFinalizers(${x})`;
    case 'requiredKeysWhen': {
      const { field, equals, map, keys, mode, nonEmpty, json } = spec;
      // applies only when a field equals a value: a string field of another value skips it
      const other = typeof field === 'string' && !field.includes('.') && typeof equals === 'string'
        ? `H.fieldIsNot(${x}, ${JSON.stringify(field)}, ${JSON.stringify(equals)})` : null;
      // the keys present (and their values not checked) report nothing
      const mapKeys = typeof map === 'string' && Array.isArray(keys) && keys.every((k) => typeof k === 'string') && json !== true;
      const present = !mapKeys ? null : nonEmpty === true
        ? `H.mapKeysNonEmpty(${x}, ${constant(map.split('.'))}, ${constant(keys)}, ${mode === 'any'})`
        : `H.mapHasKeys(${x}, ${constant(map.split('.'))}, ${constant(keys)}, ${mode === 'any'})`;
      return other && present ? `(${other} || ${present})` : other ?? present;
    }
    default: return null;
  }
}

/** Whether JSON.stringify round-trips a value exactly (no NaN, Infinity, -0, undefined, Dates...). */
function deepJsonSafe(v: unknown): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0);
  if (Array.isArray(v)) return v.every(deepJsonSafe);
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    return Object.keys(v as object).every((k) => k !== '__proto__' && deepJsonSafe((v as Record<string, unknown>)[k]));
  }
  return false;
}


/**
 * A constant of a module's source as an expression (a module has no K array): a set of JSON values,
 * an RE2 pattern (compiled on its first test), or JSON.
 */
function moduleConstant(value: unknown): string {
  if (value instanceof Set && [...value].every(deepJsonSafe)) return `new Set(${JSON.stringify([...value])})`;
  if (isObjectLike(value) && typeof value.source === 'string' && typeof value.test === 'function') return `H.lazyPattern(${JSON.stringify(value.source)})`;
  if (deepJsonSafe(value)) return JSON.stringify(value);
  throw new Error(`a constant of the generated validator cannot be written into a module: ${String(value)}`);
}

function isObjectLike(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

function generate(tree: SchemaTree): CompiledSource {
  const g = new Generator(tree);
  const source = g.source();
  return { source, constants: g.consts, closures: tree.closures };
}

/** The generated validation source of a schema, its constants and the closures it calls. */
export function compileSchemaSource(schema: Schema, options: CompileOptions = {}): CompiledSource {
  return generate(compileTree(schema, options));
}

export type { RootFn };

/**
 * `new Function('K', 'R', 'H', source)` of a CompiledSource, or the same source written into a
 * module as `(K, R, H) => { <source> }` (what generators can emit into out/validators).
 */
export type ValidatorFactory = (K: unknown[], R: Check[], H: Helpers) => RootFn;

/**
 * Compiles a schema to a validator whose validation is generated code. With `factory` (the source
 * of compileSchemaSource for the same schema and options, already turned into a function), no code
 * is evaluated at run time: the schema is compiled for its constants and closures only.
 */
export function compileSchemaCode(schema: Schema, options: CompileOptions = {}, factory?: ValidatorFactory): CompiledValidator {
  const tree = compileTree(schema, options);
  const { source, constants, closures } = generate(tree);
  const fn = factory ?? (new Function('K', 'R', 'H', source) as ValidatorFactory);
  const rootFn = fn(constants, closures.map((c) => c.fn), H);
  const root = tree.root;
  const isResource = tree.isResource;
  const run = rootRunner(rootFn, options.featureGates ?? {});
  return {
    validate(obj: unknown): FieldError[] {
      return run(obj, undefined, false);
    },
    validateUpdate(obj: unknown, old: unknown): FieldError[] {
      return run(obj, old, true);
    },
    applyDefaults(obj: unknown): void {
      applyDefaults(root, obj);
    },
    prune(obj: unknown): string[] {
      const out: string[] = [];
      prune(root, obj, '', true, isResource, out);
      return out;
    },
  };
}





