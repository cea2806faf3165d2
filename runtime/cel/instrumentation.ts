// Wraps every node of the checked AST for evaluation: one cost step per node, CEL equality and
// list-kind `+`, nanosecond time, int overflow and range checks, typed map keys, call-site overrides.
// Separate as cel-go keeps its evaluation decorators in interpreter/decorators.go.

import type { ASTNode } from '@marcbachmann/cel-js';
import { childNodes, type InternalNode } from './ast.ts';
import { celEquals, listConcat } from './equality.ts';
import { findOverride, NOT_LITERAL, type CallOverride } from './registrar.ts';
import { chargeCost, chargeStep, traversalCost } from './runtime-cost.ts';
import { checkTimeRange, compareTime, timeArithmetic } from './time.ts';
import { MessageValue } from './messages.ts';
import { celError, Duration, MAX_INT, MAX_UINT, MIN_INT, Optional, UnsignedInt } from './values.ts';

/** A literal argument's value, or NOT_LITERAL (what an override's checkLiterals receives). */
function literalOf(n: InternalNode): unknown {
  return n.op === 'value' ? n.args : NOT_LITERAL;
}

/**
 * int-vs-double ordering as cel-go does it (-1, 0, 1; NaN when unordered): doubles beyond the int64
 * range order outside it, otherwise the int is compared as a double (so 2^63-1 and 2^63 are equal).
 */
function compareIntDouble(i: bigint, d: number): number {
  if (Number.isNaN(d)) return Number.NaN;
  if (d < -9223372036854775808) return 1;
  if (d > 9223372036854775808) return -1;
  const x = Number(i);
  return x < d ? -1 : x > d ? 1 : 0;
}

const ORDER_TESTS: Record<string, (c: number) => boolean> = {
  '<': (c) => c < 0,
  '<=': (c) => c <= 0,
  '>': (c) => c > 0,
  '>=': (c) => c >= 0,
};

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A whole double used as a key of a Map with int keys looks up the int key (CEL numeric key equality); a uint list index its position. */
function intKeyFor(container: unknown, key: unknown): unknown {
  // a uint index into a list is its position (cel-go accepts int and uint indexes)
  if (Array.isArray(container) && key instanceof UnsignedInt) return key.valueOf();
  if (container instanceof Map && typeof key === 'number' && Number.isInteger(key) && !container.has(key) && container.has(BigInt(key)))
    return BigInt(key);
  return key;
}

/** Values a field selection applies to (maps, objects, messages), as opposed to scalars, lists and null. */
function hasFields(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array) && !(v instanceof UnsignedInt) && !(v instanceof Date) && !(v instanceof Duration) && !(v instanceof Optional);
}

function checkIntRange(v: unknown): unknown {
  if (typeof v === 'bigint' && (v > MAX_INT || v < MIN_INT)) throw celError('integer overflow');
  return v;
}

/** A compile-time rejection of a literal argument by an override's checkLiterals (reported as a compile error). */
export interface LiteralError {
  summary: string;
  range: { start: number };
}

/** Walks the checked AST, wraps evaluation for cost accounting and semantic fixes; returns node count. */
export function instrument(root: ASTNode, literalErrors: LiteralError[]): number {
  const seen = new Set<InternalNode>();
  const walk = (n: InternalNode): void => {
    if (seen.has(n)) return;
    seen.add(n);
    wrapNode(n, literalErrors);
    for (const c of childNodes(n)) walk(c);
  };
  walk(root as unknown as InternalNode);
  return seen.size;
}

function wrapNode(n: InternalNode, literalErrors: LiteralError[]): void {
  const meta = n.meta;
  let target: ((ev: unknown, ast: InternalNode, ctx: unknown) => unknown) | null = null;
  const resolve = (): ((ev: unknown, ast: InternalNode, ctx: unknown) => unknown) => {
    if (meta.alternate) {
      const alt = meta.alternate;
      return (ev, _ast, ctx) => alt.evaluate(ev, alt, ctx);
    }
    if (meta.macro) {
      const m = meta.macro;
      return (ev, _ast, ctx) => m.evaluate(ev, m, ctx);
    }
    return meta.evaluate;
  };
  n.evaluate = function evaluateCounted(ev, ast, ctx) {
    chargeStep();
    target ??= resolve();
    return target(ev, ast, ctx);
  };
  const keyType = n.op === 'map' ? /^map<(int|bool),/.exec(n.checkedType?.name ?? '')?.[1] : undefined;
  if (keyType) {
    // the engine builds map literals as plain objects, turning int/bool keys into strings (iteration
    // would then yield strings); rebuild them as Maps with typed keys (uint keys stay: Map lookup is by identity)
    const evaluateObject = n.evaluate;
    n.evaluate = function evaluateTypedKeys(ev, ast, ctx) {
      const v = evaluateObject(ev, ast, ctx);
      if (v === null || typeof v !== 'object' || v.constructor !== Object) return v;
      const toKey = (k: string): unknown =>
        keyType === 'bool' ? k === 'true' : BigInt(k);
      return new Map(Object.entries(v).map(([k, x]) => [toKey(k), x]));
    };
  }

  const h = n.handle;
  if (typeof h !== 'function') return;
  switch (n.op) {
    case '==':
    case '!=': {
      const negate = n.op === '!=';
      n.handle = (l: unknown, r: unknown, ast: unknown, ev: unknown) => {
        if ((typeof l === 'object' && l !== null) || (typeof r === 'object' && r !== null)) {
          const eq = celEquals(l, r);
          return negate ? !eq : eq;
        }
        return h(l, r, ast, ev);
      };
      break;
    }
    case '+':
      n.handle = (l: unknown, r: unknown, ast: unknown, ev: unknown) => {
        if (Array.isArray(l) && Array.isArray(r)) return listConcat(l, r);
        if (typeof l === 'string' && typeof r === 'string') chargeCost(traversalCost(l.length + r.length));
        return checkTimeRange(timeArithmetic('+', l, r) ?? h(l, r, ast, ev));
      };
      break;
    case '-':
      n.handle = (l: unknown, r: unknown, ast: unknown, ev: unknown) => checkTimeRange(timeArithmetic('-', l, r) ?? h(l, r, ast, ev));
      break;
    case '<':
    case '<=':
    case '>':
    case '>=': {
      const test = ORDER_TESTS[n.op];
      n.handle = (l: unknown, r: unknown, ast: unknown, ev: unknown) => {
        if (typeof l === 'bigint' && typeof r === 'number') return test(compareIntDouble(l, r));
        if (typeof l === 'number' && typeof r === 'bigint') return test(-compareIntDouble(r, l));
        const c = compareTime(l, r);
        if (c !== undefined) return test(c);
        return h(l, r, ast, ev);
      };
      break;
    }
    case '.':
      // selecting through an optional whose value has no fields (null, a number...) is an error in cel-go,
      // not an absent field: only maps and messages answer a field name with "not there"
      n.handle = (l: unknown, r: unknown, ast: unknown, ev: unknown) => {
        if (l instanceof Optional && l.hasValue() && !hasFields(l.value())) throw celError(`no such key: ${String(r)}`);
        return h(l, r, ast, ev);
      };
      break;
    case '.?':
      // a message field is there for `.?` only when set (presence), not because it reads as its default
      n.handle = (l: unknown, r: unknown, ast: unknown, ev: unknown) => {
        const target = l instanceof Optional ? (l.hasValue() ? l.value() : undefined) : l;
        if (target instanceof MessageValue && typeof r === 'string' && !target.has(r)) return Optional.none();
        return h(l, r, ast, ev);
      };
      break;
    case '[]':
    case '[?]':
      n.handle = (l: unknown, r: unknown, ast: unknown, ev: unknown) => h(l, intKeyFor(l, r), ast, ev);
      break;
    case 'in':
      n.handle = (l: unknown, r: unknown, ast: unknown, ev: unknown) => {
        // timestamps and durations: the engine's list search compares them to the millisecond
        if (Array.isArray(r) && (l instanceof Date || l instanceof Duration)) return r.some((x) => celEquals(l, x));
        const found = h(intKeyFor(r, l), r, ast, ev);
        // uint operands: the engine's list search does not compare uint with int/double
        if (found === false && Array.isArray(r) && (l instanceof UnsignedInt || r.some((x) => x instanceof UnsignedInt)))
          return r.some((x) => celEquals(l, x));
        return found;
      };
      break;
    case '/':
    case '%':
      n.handle = (l: unknown, r: unknown, ast: unknown, ev: unknown) => checkIntRange(h(l, r, ast, ev));
      break;
    case '-_':
      n.handle = (v: unknown, ast: unknown, ev: unknown) => checkIntRange(h(v, ast, ev));
      break;
    case 'call':
    case 'rcall': {
      const isR = n.op === 'rcall';
      const name = (n.args as unknown[])[0] as string;
      const argNodes = (isR ? (n.args as unknown[])[2] : (n.args as unknown[])[1]) as InternalNode[];
      const o = findOverride(name, argNodes.length, isR);
      if (o) {
        if (o.checkLiterals) {
          const lits = argNodes.map(literalOf);
          if (isR) lits.unshift(literalOf((n.args as unknown[])[1] as InternalNode));
          try {
            o.checkLiterals(lits);
          } catch (e) {
            const err = e as { summary?: string; message?: string };
            literalErrors.push({ summary: err.summary ?? err.message ?? String(e), range: { start: n.start } });
          }
        }
        n.handle = isR
          ? (args: unknown) => callOverride(o, args as unknown[])
          : (args: unknown) => callOverride(o, args as unknown[]);
      } else if (!isR && (name === 'duration' || name === 'timestamp') && argNodes.length === 1) {
        n.handle = (args: unknown, ast: unknown, ev: unknown) => checkTimeRange(h(args, ast, ev));
      } else if (!isR && name === 'string' && argNodes.length === 1) {
        n.handle = (args: unknown, ast: unknown, ev: unknown) => {
          const a = (args as unknown[])[0];
          if (a instanceof Uint8Array) {
            try {
              return STRICT_UTF8.decode(a);
            } catch {
              throw celError('invalid UTF-8 in bytes, cannot convert to string');
            }
          }
          return h(args, ast, ev);
        };
      } else if (!isR && (name === 'int' || name === 'uint') && argNodes.length === 1) {
        n.handle = (args: unknown, ast: unknown, ev: unknown) => {
          const a = (args as unknown[])[0];
          if (typeof a === 'number') {
            if (!Number.isFinite(a)) throw celError(`${name}() range error`);
            const t = BigInt(Math.trunc(a));
            if (name === 'int' ? t >= MAX_INT || t <= MIN_INT : t < 0n || t >= MAX_UINT)
              throw celError(`${name}() range error: ${a}`);
          }
          return h(args, ast, ev);
        };
      }
      break;
    }
  }
}

function callOverride(o: CallOverride, args: unknown[]): unknown {
  if (args.some((a) => a instanceof Promise)) throw celError('async values are not supported');
  return o.handler(args);
}
