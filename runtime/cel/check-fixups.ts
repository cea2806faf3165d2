// Fix-ups on the parsed AST before the type check, where the engine parses or types CEL differently
// from cel-go (has() operands, format() literals, duration + timestamp, bytes literals, empty
// literals). Separate from the instrumentation, which wraps evaluation after the check.

import type { ASTNode } from '@marcbachmann/cel-js';
import { childNodes, type InternalNode } from './ast.ts';
import { getBaseEnv, type MacroChecker, type MacroContext, type MacroEvaluator, type MacroNode, type MacroType } from './registrar.ts';
import { messageDef } from './messages.ts';
import { celError, Optional } from './values.ts';

/** The has() macro state as the engine builds it at parse time (we replace its two hooks). */
interface HasMacro {
  args: InternalNode[];
  typeCheck: (chk: MacroChecker, m: HasMacro, ctx: MacroContext) => MacroType;
  evaluate: (ev: MacroEvaluator, m: HasMacro, ctx: MacroContext) => unknown;
}

/** Whether field `name` is present on a has() operand (map key, object field, optional chain). */
export function fieldPresent(v: unknown, name: string): boolean {
  if (v instanceof Optional) return v.hasValue() && fieldPresent(v.value(), name);
  if (v instanceof Map) return v.has(name);
  if (typeof v === 'object' && v !== null && !Array.isArray(v) && (v.constructor === Object || v.constructor === undefined))
    return Object.prototype.hasOwnProperty.call(v, name);
  throw celError(`no such overload: has() on ${v === null ? 'null' : typeof v === 'object' ? (v.constructor?.name ?? 'object') : typeof v}`);
}

/** Whether an object type's declared fields include `field`; true when the type declares none (dyn, maps). */
function declaresField(fields: Readonly<Record<string, unknown>> | undefined, field: string): boolean {
  return fields === undefined || Object.prototype.hasOwnProperty.call(fields, field);
}

/** A position-only node at the `(` of a call (where cel-go reports errors of a macro's expansion). */
function openParenOf(call: InternalNode): MacroNode {
  const { input, start } = call as unknown as { input: string; start: number };
  const paren = input.indexOf('(', start);
  return { pos: paren < 0 ? start : paren, input } as unknown as MacroNode;
}

// The engine's has() only accepts a select chain rooted at an identifier; CEL allows any operand
// (map literals, `self.items[0].name`, function results), so we take over its check and evaluation.
function patchHas(n: InternalNode): void {
  const m = n.meta.macro as unknown as HasMacro | undefined;
  if (!m || !Array.isArray(m.args) || m.args.length !== 1) return;
  m.typeCheck = (chk, macro, ctx) => {
    const arg = macro.args[0];
    if (arg.op !== '.') throw chk.createError('invalid_macro_argument', 'has() invalid argument', arg as unknown as MacroNode);
    const [operand, field] = arg.args as [InternalNode, string];
    const t = chk.check(operand as unknown as MacroNode, ctx);
    // as cel-go's checker: a field that a message or schema object type does not declare is a compile
    // error, `undefined field 'f'`, located (as cel-go locates the macro's expansion) at the call's `(`
    const def = messageDef(t.name);
    const declared = def ? def.fields.some((f) => f.name === field) : declaresField(chk.objectTypes?.get(t.name)?.fields, field);
    if (!declared) throw chk.createError('no_such_field', `undefined field '${field}'`, openParenOf(n));
    return chk.getType('bool');
  };
  m.evaluate = (ev, macro, ctx) => {
    const [operand, field] = macro.args[0].args as [InternalNode, string];
    return fieldPresent(ev.run(operand as unknown as MacroNode, ctx), field);
  };
}

const TIMESTAMP_TYPE = 'google.protobuf.Timestamp';
const DURATION_TYPE = 'google.protobuf.Duration';

// The engine declares `duration + timestamp` without a return type, so its checker types the sum as
// a duration (the value is a timestamp); we correct the checked type of such `+` nodes. The value is
// computed by timeArithmetic (instrument).
function patchDurationPlusTimestamp(n: InternalNode): void {
  const check = n.meta.check;
  n.meta.check = (chk, ast, ctx) => {
    const t = check(chk, ast, ctx);
    const [l, r] = ast.args as [InternalNode, InternalNode];
    if (t.name === DURATION_TYPE && l.checkedType?.name === DURATION_TYPE && r.checkedType?.name === TIMESTAMP_TYPE)
      return chk.getType(TIMESTAMP_TYPE);
    return t;
  };
}

const SIMPLE_ESCAPES: Record<string, number> = {
  a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92, "'": 39, '"': 34, '`': 96, '?': 63,
};

/** Bytes of a CEL bytes literal's source (`b'...'`, `b"""..."""`); undefined when it is not one. */
export function decodeBytesLiteral(src: string): Uint8Array | undefined {
  const m = /^[bB]([rR]?)('''|"""|'|")([\s\S]*)\2$/.exec(src);
  if (!m) return undefined;
  const enc = new TextEncoder();
  if (m[1]) return enc.encode(m[3]);
  const out: number[] = [];
  const body = m[3];
  for (let i = 0; i < body.length; ) {
    const c = body[i];
    if (c !== '\\') {
      const cp = body.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      out.push(...enc.encode(ch));
      i += ch.length;
      continue;
    }
    const e = body[i + 1];
    if (e in SIMPLE_ESCAPES) {
      out.push(SIMPLE_ESCAPES[e]);
      i += 2;
    } else if (e === 'x' || e === 'X') {
      out.push(parseInt(body.slice(i + 2, i + 4), 16));
      i += 4;
    } else if (e >= '0' && e <= '7') {
      out.push(parseInt(body.slice(i + 1, i + 4), 8) & 0xff);
      i += 4;
    } else if (e === 'u' || e === 'U') {
      const len = e === 'u' ? 4 : 8;
      out.push(...enc.encode(String.fromCodePoint(parseInt(body.slice(i + 2, i + 2 + len), 16))));
      i += 2 + len;
    } else return undefined;
  }
  return new Uint8Array(out);
}

function isOptionalNone(n: InternalNode): boolean {
  if (n.op !== 'rcall') return false;
  const [name, recv, args] = n.args as [string, InternalNode, InternalNode[]];
  return name === 'none' && args.length === 0 && recv.op === 'id' && recv.args === 'optional';
}

/** Pre-check fix-ups: a comprehension over an empty list literal gets a dyn range (engine bug). */
export function prepareAst(root: ASTNode): void {
  const seen = new Set<InternalNode>();
  const walk = (n: InternalNode): void => {
    if (seen.has(n)) return;
    seen.add(n);
    if (n.op === 'call' && (n.args as unknown[])[0] === 'has') patchHas(n);
    if ((n.op === 'call' || n.op === 'rcall') && (n.args as unknown[])[0] === 'format') exemptFormatArguments(n);
    if (n.op === '+') patchDurationPlusTimestamp(n);
    if (n.op === 'value' && n.args instanceof Uint8Array) {
      // the engine keeps raw non-ASCII characters of a bytes literal as one byte each; CEL encodes them as UTF-8
      const decoded = decodeBytesLiteral((n as unknown as { input: string }).input.slice(n.start, n.end));
      if (decoded) n.args = decoded;
    }
    if (n.op === '.' || n.op === '.?' || n.op === '[]' || n.op === '[?]') {
      // selecting from `{}`, `[]` or `optional.none()` leaves the engine with an unbound type ("Cannot index type 'undefined'")
      const args = n.args as unknown[];
      const operand = args[0] as InternalNode;
      if ((operand.op === 'list' || operand.op === 'map') && Array.isArray(operand.args) && operand.args.length === 0)
        args[0] = getBaseEnv().parse(operand.op === 'list' ? 'dyn([])' : 'dyn({})').ast;
      else if (isOptionalNone(operand)) args[0] = getBaseEnv().parse('dyn(optional.none())').ast;
    }
    if (n.op === 'comprehension') {
      const args = n.args as { iterable: InternalNode };
      const it = args.iterable;
      if ((it.op === 'list' || it.op === 'map') && Array.isArray(it.args) && it.args.length === 0) {
        args.iterable = getBaseEnv().parse(it.op === 'list' ? 'dyn([])' : 'dyn({})').ast as unknown as InternalNode;
      }
    }
    for (const c of childNodes(n)) walk(c);
  };
  walk(root as unknown as InternalNode);
}

/**
 * cel-go's homogeneous-literal validator skips list and map literals that are arguments of
 * `format(...)` (at any nesting of literals), so `'%s %d'.format(['a', 1])` compiles upstream.
 */
function exemptFormatArguments(call: InternalNode): void {
  const args = call.args as unknown[];
  const callArgs = (call.op === 'rcall' ? args[2] : args[1]) as InternalNode[];
  for (const a of callArgs) exemptFromHomogeneity(a);
}

function exemptFromHomogeneity(n: InternalNode): void {
  if (n.op !== 'list' && n.op !== 'map') return;
  const entries = n.args as unknown[];
  if (entries.length === 0) return;
  const homogeneousCheck = n.meta.check;
  n.meta.check = (chk, ast, ctx) => {
    // Like the engine's own check with the literal option off: mixed elements join to dyn.
    const join = (acc: MacroType | undefined, node: InternalNode): MacroType => {
      const t = chk.check(node as unknown as MacroNode, ctx);
      return acc === undefined ? t : ((acc as unknown as JoinableType).unify(chk.registry, t) ?? chk.getType('dyn'));
    };
    if (n.op === 'list') {
      let elem: MacroType | undefined;
      for (const e of entries as InternalNode[]) elem = join(elem, e);
      return elem ? chk.registry.getListType(elem) : homogeneousCheck(chk, ast, ctx);
    }
    let key: MacroType | undefined;
    let value: MacroType | undefined;
    for (const [k, v] of entries as [InternalNode, InternalNode][]) {
      key = join(key, k);
      value = join(value, v);
    }
    return key && value ? chk.registry.getMapType(key, value) : homogeneousCheck(chk, ast, ctx);
  };
  for (const e of entries) {
    if (Array.isArray(e)) for (const x of e as InternalNode[]) exemptFromHomogeneity(x);
    else exemptFromHomogeneity(e as InternalNode);
  }
}

/** The engine's type objects join with `unify` (null when the two types do not unify). */
interface JoinableType {
  unify(registry: unknown, other: MacroType): MacroType | null;
}
