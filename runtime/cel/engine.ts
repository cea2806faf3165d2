// The only module that imports @marcbachmann/cel-js. Everything the rest of runtime/cel needs
// from the engine goes through here, so that a patch or a swap of the engine stays local.
//
// What this layer adds on top of the engine:
// - compile = parse + type-check once, then instrument the checked AST:
//   * every node evaluation costs one step; a per-call budget aborts runaway evaluations;
//   * `==`/`!=` use our CEL equality (set/map list semantics, object types, cross-type numbers);
//   * `+` on lists honours x-cluster-list-type set/map (document 2 concatenation);
//   * int negation, division and modulo report overflow; int()/uint() of doubles check range;
//   * timestamps keep nanoseconds (a `Date` plus a sub-millisecond part): ==, <, +, -, `in` on
//     timestamps and durations are computed here in BigInt nanoseconds; `duration + timestamp` is
//     re-typed as a timestamp before the check;
//   * built-in functions with wrong semantics (matches, lowerAscii, indexOf...) are replaced
//     per call site by our handlers (the engine does not let a registration override a built-in).
// - a small registrar API for libraries (functions, namespaces, object types, macros).

import {
  Environment,
  EvaluationError,
  Optional as EngineOptional,
  type ASTNode,
  type TypeCheckResult,
} from '@marcbachmann/cel-js';
import { Duration as EngineDuration, UnsignedInt as EngineUnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { CelCompileError } from '../schema/types.ts';
import { rewriteOptionalEntries } from './optional-syntax.ts';

/** A CEL type as the engine spells it: `int`, `list<string>`, `map<string, dyn>`, a registered type name. */
export type CelTypeDecl = string;

export const Optional = EngineOptional;
export type Optional<T = unknown> = EngineOptional<T>;
export const Duration = EngineDuration;
export type Duration = EngineDuration;
export const UnsignedInt = EngineUnsignedInt;
export type UnsignedInt = EngineUnsignedInt;

export const MAX_INT = 9223372036854775807n;
export const MIN_INT = -9223372036854775808n;
export const MAX_UINT = 18446744073709551615n;

/** Raised by handlers for a CEL runtime error (no_such_overload, invalid argument...). */
export function celError(message: string): Error {
  return new EvaluationError(message);
}

// ---------------------------------------------------------------------------------------------
// Timestamps with nanosecond precision
//
// The engine types JS `Date` values as google.protobuf.Timestamp (by exact constructor), so a
// timestamp stays a `Date` holding the millisecond floor of its instant; the nanoseconds below the
// millisecond (0..999999) ride along on a symbol property. Every operation where the sub-millisecond
// part matters (==, <, +, -, in, string(), timestamp(string)) is handled by this layer, not the engine.

const SUB_MS_NANOS = Symbol('cel.subMillisecondNanos');
const NANOS_PER_MS = 1_000_000n;
const NANOS_PER_S = 1_000_000_000n;

/** Nanoseconds below the millisecond of a timestamp (0..999999). */
export function subMillisecondNanos(d: Date): number {
  return (d as unknown as Record<symbol, number | undefined>)[SUB_MS_NANOS] ?? 0;
}

/** Nanoseconds since the Unix epoch. */
export function timestampNanos(d: Date): bigint {
  return BigInt(d.getTime()) * NANOS_PER_MS + BigInt(subMillisecondNanos(d));
}

/** A timestamp from nanoseconds since the Unix epoch. */
export function timestampFromNanos(total: bigint): Date {
  let ms = total / NANOS_PER_MS;
  let sub = total % NANOS_PER_MS;
  if (sub < 0n) {
    ms -= 1n;
    sub += NANOS_PER_MS;
  }
  const d = new Date(Number(ms));
  if (sub !== 0n) Object.defineProperty(d, SUB_MS_NANOS, { value: Number(sub), enumerable: false });
  return d;
}

/** Total nanoseconds of a duration. */
export function durationNanos(d: EngineDuration): bigint {
  return BigInt(d.seconds) * NANOS_PER_S + BigInt(Math.trunc(d.nanos));
}

/** A duration from total nanoseconds, seconds and nanos sharing the sign (as protobuf and cel-go). */
export function durationFromNanos(total: bigint): EngineDuration {
  return new EngineDuration(total / NANOS_PER_S, Number(total % NANOS_PER_S));
}

/** -1, 0, 1 for two timestamps or two durations; undefined for other operands. */
export function compareTime(a: unknown, b: unknown): number | undefined {
  let x: bigint;
  let y: bigint;
  if (a instanceof Date && b instanceof Date) [x, y] = [timestampNanos(a), timestampNanos(b)];
  else if (a instanceof EngineDuration && b instanceof EngineDuration) [x, y] = [durationNanos(a), durationNanos(b)];
  else return undefined;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** `+`/`-` over timestamps and durations at nanosecond precision; undefined for other operands. */
function timeArithmetic(op: '+' | '-', l: unknown, r: unknown): unknown {
  const sign = op === '+' ? 1n : -1n;
  if (l instanceof Date) {
    if (r instanceof EngineDuration) return timestampFromNanos(timestampNanos(l) + sign * durationNanos(r));
    if (r instanceof Date && op === '-') return durationFromNanos(timestampNanos(l) - timestampNanos(r));
    return undefined;
  }
  if (l instanceof EngineDuration) {
    if (r instanceof EngineDuration) return durationFromNanos(durationNanos(l) + sign * durationNanos(r));
    if (r instanceof Date && op === '+') return timestampFromNanos(timestampNanos(r) + durationNanos(l));
  }
  return undefined;
}

const RFC3339_PARTS =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|([+-])(\d{2}):(\d{2})))?$/;

/**
 * RFC 3339 timestamp with up to nanosecond precision (further fractional digits are truncated, as
 * Go's time.Parse does). `strict` (the CEL `timestamp()` function) requires `T`, `Z` and the time of
 * day; otherwise a lowercase `t`/`z`, a space separator and a bare date (midnight UTC) are accepted.
 */
export function parseRfc3339(s: string, strict: boolean): Date | undefined {
  const m = RFC3339_PARTS.exec(s);
  if (!m) return undefined;
  if (strict && (m[4] === undefined || !s.includes('T') || m[8] === 'z')) return undefined;
  const [year, month, day, hour = 0, min = 0, sec = 0] = m.slice(1, 7).map((x) => (x === undefined ? 0 : Number(x)));
  const daysInMonth = new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeapYear(year) ? 1 : 0);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || min > 59 || sec > 59) return undefined;
  let offsetMin = 0;
  if (m[9] !== undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offsetMin = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const base = new Date(0);
  base.setUTCFullYear(year, month - 1, day);
  base.setUTCHours(hour, min, sec, 0);
  const ms = base.getTime() - offsetMin * 60_000;
  const frac = BigInt((m[7] ?? '').slice(0, 9).padEnd(9, '0'));
  return timestampFromNanos(BigInt(ms) * NANOS_PER_MS + frac);
}

function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

// ---------------------------------------------------------------------------------------------
// Cost accounting

/** Thrown when an evaluation exceeds its budget. Not an EvaluationError, so optionals never swallow it. */
export class CelCostLimitError extends Error {
  constructor(readonly limit: number) {
    super(`operation cancelled: actual cost limit exceeded (limit ${limit})`);
    this.name = 'CelCostLimitError';
  }
}

interface Budget {
  used: number;
  limit: number;
}
let currentBudget: Budget | null = null;

/** Charges `units` to the evaluation in progress (libraries call this for size-proportional work). */
export function chargeCost(units: number): void {
  const b = currentBudget;
  if (b === null) return;
  b.used += units;
  if (b.used > b.limit) throw new CelCostLimitError(b.limit);
}

/** Size-proportional cost of traversing a string or list, as cel-go charges it (0.1 per unit). */
export function traversalCost(size: number): number {
  return Math.ceil(size * 0.1);
}

// ---------------------------------------------------------------------------------------------
// List kinds (x-cluster-list-type) carried on runtime arrays

const LIST_KIND = Symbol('cel.listKind');
export type ListKind = { type: 'set' } | { type: 'map'; keys: string[] };

export function markList<T extends unknown[]>(list: T, kind: ListKind): T {
  Object.defineProperty(list, LIST_KIND, { value: kind, enumerable: false });
  return list;
}

export function listKindOf(v: unknown): ListKind | undefined {
  return Array.isArray(v) ? ((v as unknown as Record<symbol, ListKind | undefined>)[LIST_KIND]) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Object types

/** Base class of every object (message) type we declare; fields are Map entries keyed by CEL name. */
export class CelObject extends Map<string, unknown> {
  /** The declared type name, set on each generated subclass. */
  static typeName = 'object';
  get celTypeName(): string {
    return (this.constructor as typeof CelObject).typeName;
  }
}

export interface ObjectTypeDef {
  name: string;
  /** CEL field name -> CEL type. */
  fields: Record<string, CelTypeDecl>;
}

// ---------------------------------------------------------------------------------------------
// Equality (CEL semantics + list kinds + object types)

export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  switch (typeof a) {
    case 'bigint':
      if (typeof b === 'number') return Number(a) === b && BigInt(Math.trunc(b)) === a;
      if (b instanceof EngineUnsignedInt) return a === b.valueOf();
      return false;
    case 'number':
      if (typeof b === 'bigint') return celEquals(b, a);
      if (b instanceof EngineUnsignedInt) return a === Number(b.valueOf()) && Number.isInteger(a);
      return false;
    case 'string':
    case 'boolean':
    case 'undefined':
      return false;
  }
  // uint is an object: compare it with int/double before the object-only checks below
  if (a instanceof EngineUnsignedInt) {
    if (b instanceof EngineUnsignedInt) return a.valueOf() === b.valueOf();
    return typeof b === 'bigint' || typeof b === 'number' ? celEquals(b, a) : false;
  }
  if (a === null || b === null || typeof b !== 'object' || typeof a !== 'object') return false;
  if (a instanceof Uint8Array) {
    if (!(b instanceof Uint8Array) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  if (a instanceof Date || a instanceof EngineDuration) return compareTime(a, b) === 0;
  if (a instanceof EngineOptional) {
    if (!(b instanceof EngineOptional)) return false;
    if (!a.hasValue() || !b.hasValue()) return a.hasValue() === b.hasValue();
    return celEquals(a.value(), b.value());
  }
  if (Array.isArray(a)) return Array.isArray(b) && listEquals(a, b);
  if (a instanceof CelObject) {
    if (!(b instanceof CelObject) || a.constructor !== b.constructor) return false;
    return entriesEqual(a, b);
  }
  if (isCelMap(a)) return isCelMap(b) && entriesEqual(toEntriesMap(a), toEntriesMap(b));
  if (a instanceof Set || b instanceof Set) return false;
  const eq = (a as { celEquals?: (o: unknown) => boolean }).celEquals;
  if (typeof eq === 'function') return eq.call(a, b);
  return false;
}

function isCelMap(v: object): boolean {
  const c = v.constructor;
  return c === undefined || c === Object || c === Map;
}

function toEntriesMap(v: object): Map<unknown, unknown> {
  if (v instanceof Map) return v;
  return new Map(Object.entries(v));
}

function entriesEqual(a: Map<unknown, unknown>, b: Map<unknown, unknown>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    let other: unknown = b.get(k);
    if (other === undefined) {
      // numeric keys compare across int/uint/double
      let found = false;
      for (const [k2, v2] of b) {
        if (celEquals(k, k2)) {
          other = v2;
          found = true;
          break;
        }
      }
      if (!found) return false;
    }
    if (!celEquals(v, other)) return false;
  }
  return true;
}

function mapListKey(el: unknown, keys: string[]): unknown[] | undefined {
  if (!(el instanceof Map)) return undefined;
  return keys.map((k) => el.get(k));
}

function keysEqual(a: unknown[] | undefined, b: unknown[] | undefined): boolean {
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!celEquals(a[i], b[i])) return false;
  return true;
}

function listEquals(a: unknown[], b: unknown[]): boolean {
  if (a.length !== b.length) return false;
  chargeCost(traversalCost(a.length));
  const kind = listKindOf(a) ?? listKindOf(b);
  if (kind?.type === 'set') {
    // every element of b is in a (sizes equal, sets hold no duplicates)
    outer: for (const y of b) {
      for (const x of a) if (celEquals(x, y)) continue outer;
      return false;
    }
    for (const x of a) {
      let found = false;
      for (const y of b) if (celEquals(x, y)) { found = true; break; }
      if (!found) return false;
    }
    return true;
  }
  if (kind?.type === 'map') {
    for (const y of b) {
      const ky = mapListKey(y, kind.keys);
      const x = a.find((e) => keysEqual(mapListKey(e, kind.keys), ky));
      if (x === undefined || !celEquals(x, y)) return false;
    }
    return true;
  }
  for (let i = 0; i < a.length; i++) if (!celEquals(a[i], b[i])) return false;
  return true;
}

/** `X + Y` for lists: set keeps X and appends disjoint Y; map lets Y override equal keys. */
export function listConcat(a: unknown[], b: unknown[]): unknown[] {
  chargeCost(traversalCost(a.length + b.length));
  const kind = listKindOf(a);
  if (kind?.type === 'set') {
    const out = [...a];
    for (const y of b) if (!out.some((x) => celEquals(x, y))) out.push(y);
    return markList(out, kind);
  }
  if (kind?.type === 'map') {
    const out = [...a];
    for (const y of b) {
      const ky = mapListKey(y, kind.keys);
      const idx = out.findIndex((x) => keysEqual(mapListKey(x, kind.keys), ky));
      if (idx >= 0) out[idx] = y;
      else out.push(y);
    }
    return markList(out, kind);
  }
  return [...a, ...b];
}

// ---------------------------------------------------------------------------------------------
// Library registration

export type CelHandler = (...args: never[]) => unknown;

/** A replacement for a built-in function at every call site with that name and arity. */
export interface CallOverride {
  /** Receives the receiver (for method calls) followed by the arguments. */
  handler: (args: unknown[]) => unknown;
  /** Optional compile-time check of literal arguments (e.g. regex syntax); throw to reject. */
  checkLiterals?: (literals: (unknown | typeof NOT_LITERAL)[]) => void;
}
export const NOT_LITERAL = Symbol('notLiteral');

/** Type-checker and evaluator handles a macro sees, reduced to what our macros use. */
export interface MacroChecker {
  check(node: MacroNode, ctx: MacroContext): MacroType;
  getType(name: string): MacroType;
  createError(code: string, message: string, node: MacroNode): Error;
  registry: {
    getListType(t: MacroType): MacroType;
    getMapType(k: MacroType, v: MacroType): MacroType;
    getOptionalType(t: MacroType | string): MacroType;
  };
}
export interface MacroType {
  kind: string;
  name: string;
  keyType?: MacroType;
  valueType?: MacroType;
}
export interface MacroContext {
  forkWithVariable(name: string, type: MacroType): MacroContext;
  setIterValue(v: unknown, ev: MacroEvaluator): MacroContext;
  reuse(parent: MacroContext): MacroContext;
}
export interface MacroEvaluator {
  run(node: MacroNode, ctx: MacroContext): unknown;
}
export type MacroNode = ASTNode;

export interface MacroDefinition<S> {
  /** Called at parse time with the call's argument nodes and receiver. */
  expand(args: MacroNode[], receiver: MacroNode | null): S;
  typeCheck(checker: MacroChecker, state: S, ctx: MacroContext): MacroType;
  evaluate(ev: MacroEvaluator, state: S, ctx: MacroContext): unknown;
}

export interface CelRegistrar {
  /** `name(args): ret` or `recv.name(args): ret`; handler receives the receiver first. */
  fn(signature: string, handler: CelHandler): void;
  /** A class registered as an opaque CEL type (values are instances of ctor). */
  type(name: string, ctor: abstract new (...args: never[]) => object): void;
  /** A namespace such as `strings` or `sets`: a constant whose methods are the namespace's functions. */
  namespace(name: string): string;
  /** Replace a built-in or registered function at its call sites. */
  override(name: string, arity: number, receiver: boolean, o: CallOverride): void;
  /** A macro (receiver-style when receiver is true; receiverType narrows the receiver, default dyn). */
  macro<S>(name: string, arity: number, receiver: boolean, def: MacroDefinition<S>, receiverType?: string): void;
  /** An operator overload, e.g. `Quantity == Quantity`. */
  operator(signature: string, handler: (a: never, b: never) => unknown): void;
}

export type CelLibrary = (r: CelRegistrar) => void;

const SYNC = { async: false } as const;
const overrides = new Map<string, CallOverride>();

function overrideKey(name: string, arity: number, receiver: boolean): string {
  return `${receiver ? 'r' : 'f'}:${name}:${arity}`;
}

function registrarFor(env: Environment): CelRegistrar {
  return {
    fn(signature, handler) {
      env.registerFunction(signature, handler as (...a: unknown[]) => unknown, SYNC);
    },
    type(name, ctor) {
      env.registerType(name, ctor as unknown as new (...a: unknown[]) => object);
    },
    namespace(name) {
      const typeName = `${name[0].toUpperCase()}${name.slice(1)}Namespace`;
      const ctor = { [typeName]: class {} }[typeName];
      env.registerType(typeName, ctor);
      env.registerConstant(name, typeName, new ctor());
      return typeName;
    },
    override(name, arity, receiver, o) {
      overrides.set(overrideKey(name, arity, receiver), o);
    },
    macro(name, arity, receiver, def, receiverType = 'dyn') {
      const sig = `${receiver ? `${receiverType}.` : ''}${name}(${new Array(arity).fill('ast').join(', ')}): dyn`;
      env.registerFunction(
        sig,
        ((opts: { args: MacroNode[]; receiver: MacroNode | null }) => {
          const state = def.expand(opts.args, opts.receiver);
          return {
            state,
            async: false,
            typeCheck: (chk: MacroChecker, _m: unknown, ctx: MacroContext) => def.typeCheck(chk, state, ctx),
            evaluate: (ev: MacroEvaluator, _m: unknown, ctx: MacroContext) => def.evaluate(ev, state, ctx),
          };
        }) as unknown as (...a: unknown[]) => unknown,
        SYNC,
      );
    },
    operator(signature, handler) {
      env.registerOperator(signature, handler as (a: unknown, b: unknown) => unknown);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Environments

export interface EnvSpec {
  variables: Record<string, CelTypeDecl>;
  types?: ObjectTypeDef[];
}

let baseEnv: Environment | null = null;
const pendingLibraries: CelLibrary[] = [];

/** Adds libraries to the base environment; must be called before the first environment is created. */
export function installLibraries(libs: CelLibrary[]): void {
  if (baseEnv) throw new Error('CEL libraries must be installed before the first environment is built');
  pendingLibraries.push(...libs);
}

function getBaseEnv(): Environment {
  if (baseEnv) return baseEnv;
  const env = new Environment({
    enableOptionalTypes: true,
    homogeneousAggregateLiterals: true,
    unlistedVariablesAreDyn: false,
    limits: { maxAstNodes: 10000, maxDepth: 250, maxListElements: 10000, maxMapEntries: 10000 },
  });
  const r = registrarFor(env);
  for (const lib of pendingLibraries) lib(r);
  baseEnv = env;
  return env;
}

/** A compiled environment: variables and object types declared, ready to compile expressions. */
export class CelEnvironment {
  readonly #env: Environment;
  readonly #typeCtors = new Map<string, typeof CelObject>();

  constructor(spec: EnvSpec) {
    const env = getBaseEnv().clone();
    for (const t of spec.types ?? []) {
      const name = t.name;
      const ctor = { [name]: class extends CelObject {} }[name];
      ctor.typeName = name;
      this.#typeCtors.set(name, ctor);
    }
    for (const t of spec.types ?? []) {
      const ctor = this.#typeCtors.get(t.name)!;
      env.registerType(t.name, { ctor, fields: t.fields });
      env.registerOperator(`${t.name} == ${t.name}`, (a: unknown, b: unknown) => celEquals(a, b));
    }
    for (const [name, type] of Object.entries(spec.variables)) env.registerVariable(name, type);
    this.#env = env;
  }

  /** The runtime class of a declared object type (instances are what the type's values must be). */
  objectClass(name: string): typeof CelObject {
    const c = this.#typeCtors.get(name);
    if (!c) throw new Error(`unknown object type ${name}`);
    return c;
  }

  /** Parses and type-checks; throws CelCompileError with a 1-based line/column. */
  compile(expr: string): CompiledExpression {
    let parsed: ReturnType<Environment['parse']>;
    try {
      parsed = this.#env.parse(rewriteOptionalEntries(expr));
    } catch (e) {
      throw toCompileError(expr, e);
    }
    prepareAst(parsed.ast);
    let checked: TypeCheckResult;
    try {
      checked = parsed.check();
    } catch (e) {
      throw toCompileError(expr, e);
    }
    if (!checked.valid) throw toCompileError(expr, checked.error);
    const literalErrors: LiteralError[] = [];
    const nodes = instrument(parsed.ast, literalErrors);
    if (literalErrors.length > 0) throw toCompileError(expr, literalErrors[0]);
    return new CompiledExpression(expr, checked.type ?? 'dyn', parsed, nodes);
  }
}

function toCompileError(expr: string, e: unknown): CelCompileError {
  if (e instanceof CelCompileError) return e;
  const err = e as { summary?: string; message?: string; range?: { start: number } };
  const msg = err?.summary ?? err?.message ?? String(e);
  const start = err?.range?.start;
  let position: { line: number; column: number } | undefined;
  if (typeof start === 'number') {
    let line = 1;
    let column = 1;
    for (let i = 0; i < start && i < expr.length; i++) {
      if (expr[i] === '\n') {
        line++;
        column = 1;
      } else column++;
    }
    position = { line, column };
  }
  const where = position ? `<input>:${position.line}:${position.column}: ` : '';
  return new CelCompileError(`compilation failed: ERROR: ${where}${msg}`, position);
}

/** A node of the checked AST, as the static cost estimator sees it. */
export interface AstView {
  op: string;
  /** Function or field name for call/rcall/select nodes. */
  name?: string;
  /** Literal value for `value` nodes, identifier name for `id` nodes. */
  value?: unknown;
  children: AstView[];
  /** For comprehensions: iteration variable(s), range, loop step, and the rest. */
  comprehension?: { iterVars: string[]; range: AstView; step: AstView[]; other: AstView[] };
  type: string;
  start: number;
}

export class CompiledExpression {
  constructor(
    readonly source: string,
    /** The checked result type, e.g. `bool`, `string`, `dyn`. */
    readonly type: string,
    private readonly parsed: ReturnType<Environment['parse']>,
    private readonly nodeCount: number,
  ) {}

  /** Number of AST nodes (a lower bound of the cost of one evaluation). */
  get size(): number {
    return this.nodeCount;
  }

  /**
   * Evaluates with the given variables. `costLimit` bounds the work (node evaluations plus
   * size-proportional library costs); exceeding it throws CelCostLimitError.
   */
  evaluate(vars: Record<string, unknown>, costLimit = Number.POSITIVE_INFINITY): unknown {
    const outer = currentBudget;
    const budget: Budget = { used: 0, limit: costLimit };
    currentBudget = budget;
    try {
      const result: unknown = this.parsed(vars);
      if (budget.used > budget.limit) throw new CelCostLimitError(budget.limit);
      return result;
    } catch (e) {
      if (budget.used > budget.limit) throw new CelCostLimitError(budget.limit);
      throw e;
    } finally {
      currentBudget = outer;
    }
  }

  /** The checked AST in a neutral shape (for the static cost estimator). */
  view(): AstView {
    return viewOf(this.parsed.ast as unknown as InternalNode);
  }
}

// ---------------------------------------------------------------------------------------------
// AST internals (duck-typed; the engine's .d.ts does not describe them)

interface InternalMeta {
  check: (chk: MacroChecker, ast: InternalNode, ctx: MacroContext) => MacroType;
  evaluate: (ev: unknown, ast: InternalNode, ctx: unknown) => unknown;
  alternate?: InternalNode;
  macro?: Record<string, unknown> & { evaluate: (ev: unknown, m: unknown, ctx: unknown) => unknown };
}
interface InternalNode {
  op: string;
  args: unknown;
  start: number;
  end: number;
  meta: InternalMeta;
  checkedType?: { name: string };
  handle?: (...a: unknown[]) => unknown;
  evaluate: (ev: unknown, ast: InternalNode, ctx: unknown) => unknown;
  left?: InternalNode;
  right?: InternalNode;
}

function isNode(v: unknown): v is InternalNode {
  return typeof v === 'object' && v !== null && 'op' in v && 'meta' in v && typeof (v as InternalNode).op === 'string';
}

function childNodes(n: InternalNode): InternalNode[] {
  const out: InternalNode[] = [];
  const visit = (v: unknown, depth: number): void => {
    if (depth > 3 || v === null || typeof v !== 'object') return;
    if (isNode(v)) {
      out.push(v);
      return;
    }
    if (Array.isArray(v)) for (const x of v) visit(x, depth + 1);
    else if (v.constructor === Object) for (const x of Object.values(v)) visit(x, depth + 1);
  };
  visit(n.args, 0);
  if (n.meta.alternate) out.push(n.meta.alternate);
  if (n.meta.macro) for (const [k, v] of Object.entries(n.meta.macro)) if (k !== 'ast') visit(v, 1);
  return out;
}

/** The has() macro state as the engine builds it at parse time (we replace its two hooks). */
interface HasMacro {
  args: InternalNode[];
  typeCheck: (chk: MacroChecker, m: HasMacro, ctx: MacroContext) => MacroType;
  evaluate: (ev: MacroEvaluator, m: HasMacro, ctx: MacroContext) => unknown;
}

/** Whether field `name` is present on a has() operand (map key, object field, optional chain). */
export function fieldPresent(v: unknown, name: string): boolean {
  if (v instanceof EngineOptional) return v.hasValue() && fieldPresent(v.value(), name);
  if (v instanceof Map) return v.has(name);
  if (typeof v === 'object' && v !== null && !Array.isArray(v) && (v.constructor === Object || v.constructor === undefined))
    return Object.prototype.hasOwnProperty.call(v, name);
  throw celError(`no such overload: has() on ${v === null ? 'null' : typeof v === 'object' ? (v.constructor?.name ?? 'object') : typeof v}`);
}

// The engine's has() only accepts a select chain rooted at an identifier; CEL allows any operand
// (map literals, `self.items[0].name`, function results), so we take over its check and evaluation.
function patchHas(n: InternalNode): void {
  const m = n.meta.macro as unknown as HasMacro | undefined;
  if (!m || !Array.isArray(m.args) || m.args.length !== 1) return;
  m.typeCheck = (chk, macro, ctx) => {
    const arg = macro.args[0];
    if (arg.op !== '.') throw chk.createError('invalid_macro_argument', 'has() invalid argument', arg as unknown as MacroNode);
    // only the operand is checked: like the engine's own has(), a field the type does not declare is simply absent
    chk.check((arg.args as [InternalNode, string])[0] as unknown as MacroNode, ctx);
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
function prepareAst(root: ASTNode): void {
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

function literalOf(n: InternalNode): unknown {
  return n.op === 'value' ? n.args : NOT_LITERAL;
}

/** Go's time.Duration range (int64 nanoseconds), which cel-go durations are bound to. */
const MAX_DURATION_NANOS = 9223372036854775807n;
const MIN_TIMESTAMP_MS = -62135596800000;
const MAX_TIMESTAMP_MS = 253402300799999;

/** CEL range errors for timestamps outside 0001..9999 and durations outside Go's int64 nanoseconds. */
export function checkTimeRange(v: unknown): unknown {
  if (v instanceof Date) {
    const t = v.getTime();
    if (!(t >= MIN_TIMESTAMP_MS && t <= MAX_TIMESTAMP_MS)) throw celError('timestamp out of range');
  } else if (v instanceof EngineDuration) {
    const total = BigInt(v.seconds) * 1_000_000_000n + BigInt(Math.trunc(v.nanos));
    if (total > MAX_DURATION_NANOS || total < -MAX_DURATION_NANOS) throw celError('duration out of range');
  }
  return v;
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

/** A whole double used as a key of a Map with int keys looks up the int key (CEL numeric key equality). */
function intKeyFor(container: unknown, key: unknown): unknown {
  if (container instanceof Map && typeof key === 'number' && Number.isInteger(key) && !container.has(key) && container.has(BigInt(key)))
    return BigInt(key);
  return key;
}

function checkIntRange(v: unknown): unknown {
  if (typeof v === 'bigint' && (v > MAX_INT || v < MIN_INT)) throw celError('integer overflow');
  return v;
}

/** Walks the checked AST, wraps evaluation for cost accounting and semantic fixes; returns node count. */
interface LiteralError {
  summary: string;
  range: { start: number };
}

function instrument(root: ASTNode, literalErrors: LiteralError[]): number {
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
    const b = currentBudget;
    if (b !== null && ++b.used > b.limit) throw new CelCostLimitError(b.limit);
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
    case '[]':
    case '[?]':
      n.handle = (l: unknown, r: unknown, ast: unknown, ev: unknown) => h(l, intKeyFor(l, r), ast, ev);
      break;
    case 'in':
      n.handle = (l: unknown, r: unknown, ast: unknown, ev: unknown) => {
        // timestamps and durations: the engine's list search compares them to the millisecond
        if (Array.isArray(r) && (l instanceof Date || l instanceof EngineDuration)) return r.some((x) => celEquals(l, x));
        const found = h(intKeyFor(r, l), r, ast, ev);
        // uint operands: the engine's list search does not compare uint with int/double
        if (found === false && Array.isArray(r) && (l instanceof EngineUnsignedInt || r.some((x) => x instanceof EngineUnsignedInt)))
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
      const o = overrides.get(overrideKey(name, argNodes.length, isR));
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

function viewOf(n: InternalNode): AstView {
  const type = n.checkedType?.name ?? 'dyn';
  if (n.meta.alternate) {
    const v = viewOf(n.meta.alternate);
    if (n.op === 'id') return { ...v, op: 'value', start: n.start };
    return v;
  }
  const base = { type, start: n.start };
  switch (n.op) {
    case 'value':
      return { ...base, op: 'value', value: n.args, children: [] };
    case 'id':
      return { ...base, op: 'id', value: n.args, children: [] };
    case '.':
    case '.?': {
      const [l, f] = n.args as [InternalNode, string];
      return { ...base, op: n.op, name: f, children: [viewOf(l)] };
    }
    case 'call': {
      const [name, args] = n.args as [string, InternalNode[]];
      const children = n.meta.macro ? childNodes(n).map(viewOf) : args.map(viewOf);
      return { ...base, op: n.meta.macro ? 'macro' : 'call', name, children };
    }
    case 'rcall': {
      const [name, recv, args] = n.args as [string, InternalNode, InternalNode[]];
      if (n.meta.macro) return { ...base, op: 'macro', name, children: [recv, ...args].map(viewOf) };
      return { ...base, op: 'rcall', name, children: [recv, ...args].map(viewOf) };
    }
    case 'comprehension': {
      const a = n.args as { iterVarName: string; iterable: InternalNode; init: InternalNode; step: InternalNode };
      return {
        ...base,
        op: 'comprehension',
        children: [],
        comprehension: { iterVars: [a.iterVarName], range: viewOf(a.iterable), step: [viewOf(a.step)], other: [viewOf(a.init)] },
      };
    }
    case 'map': {
      const entries = n.args as [InternalNode, InternalNode][];
      return { ...base, op: 'map', children: entries.flatMap(([k, v]) => [viewOf(k), viewOf(v)]) };
    }
    default:
      return { ...base, op: n.op, children: childNodes(n).map(viewOf) };
  }
}

/** Checked type of a macro argument node (for macros in libraries). */
export function nodeSource(n: MacroNode): string {
  return n.input.slice(n.start, n.end);
}

/** Identifier name of a macro argument, or undefined if it is not a simple identifier. */
export function identName(n: MacroNode): string | undefined {
  return n.op === 'id' ? (n.args as string) : undefined;
}

export type { ASTNode };
