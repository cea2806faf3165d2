// The registrar API libraries use (functions, types, namespaces, call-site overrides, macros) and the
// base environment they are installed into. Separate as cel-go keeps library registration in cel/library.go.

import { Environment, type ASTNode } from '@marcbachmann/cel-js';
import { messagesLibrary } from './messages.ts';

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
  /** The declared object types (schema objects, messages) by name, with their fields when declared. */
  objectTypes?: ReadonlyMap<string, { fields?: Readonly<Record<string, unknown>> }>;
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

/** The override registered for call sites of `name` with that arity and call style, if any. */
export function findOverride(name: string, arity: number, receiver: boolean): CallOverride | undefined {
  return overrides.get(overrideKey(name, arity, receiver));
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
// The base environment: built once, on first use, with every installed library; each
// CelEnvironment clones it.

let baseEnv: Environment | null = null;
const pendingLibraries: CelLibrary[] = [];
/** Libraries an environment opts into by name (cel-go's ext.Math(), ext.Encoders()...); never in the base. */
const extensionLibraries = new Map<string, CelLibrary>();
/** Source rewrites an extension needs before parsing (syntax the engine's parser does not take). */
const extensionRewrites = new Map<string, (src: string) => string>();
const extendedEnvs = new Map<string, Environment>();

/** Adds libraries to the base environment; must be called before the first environment is created. */
export function installLibraries(libs: CelLibrary[]): void {
  if (baseEnv) throw new Error('CEL libraries must be installed before the first environment is built');
  pendingLibraries.push(...libs);
}

/**
 * Makes a library available to environments that name it (`CelEnvironment({ extensions })`). The
 * Kubernetes environment does not enable such libraries, so rules never see them.
 */
export function installExtension(name: string, lib: CelLibrary, rewrite?: (src: string) => string): void {
  if (extensionLibraries.has(name)) throw new Error(`CEL extension ${name} is already installed`);
  extensionLibraries.set(name, lib);
  if (rewrite) extensionRewrites.set(name, rewrite);
}

/** The source rewrites of the named extensions, applied in order before parsing. */
export function extensionSourceRewrite(extensions: readonly string[]): (src: string) => string {
  const fns = extensions.flatMap((name) => extensionRewrites.get(name) ?? []);
  return (src) => fns.reduce((s, f) => f(s), src);
}

/** The shared environment holding every installed library (built on first use), plus the named extensions. */
export function getBaseEnv(extensions: readonly string[] = []): Environment {
  if (extensions.length > 0) return extendedEnv(extensions);
  if (baseEnv) return baseEnv;
  const env = new Environment({
    enableOptionalTypes: true,
    homogeneousAggregateLiterals: true,
    unlistedVariablesAreDyn: false,
    limits: { maxAstNodes: 10000, maxDepth: 250, maxListElements: 10000, maxMapEntries: 10000 },
  });
  const r = registrarFor(env);
  messagesLibrary(r);
  for (const lib of pendingLibraries) lib(r);
  baseEnv = env;
  return env;
}

function extendedEnv(extensions: readonly string[]): Environment {
  const key = [...new Set(extensions)].sort().join(',');
  const cached = extendedEnvs.get(key);
  if (cached) return cached;
  const env = getBaseEnv().clone();
  const r = registrarFor(env);
  for (const name of key.split(',')) {
    const lib = extensionLibraries.get(name);
    if (!lib) throw new Error(`unknown CEL extension ${name}`);
    lib(r);
  }
  extendedEnvs.set(key, env);
  return env;
}

// ---------------------------------------------------------------------------------------------
// Helpers for macros in libraries

/** Source text of a macro argument node (for macros in libraries). */
export function nodeSource(n: MacroNode): string {
  return n.input.slice(n.start, n.end);
}

/** Identifier name of a macro argument, or undefined if it is not a simple identifier. */
export function identName(n: MacroNode): string | undefined {
  return n.op === 'id' ? (n.args as string) : undefined;
}
