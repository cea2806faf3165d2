// The run-time half of a standalone validator (a module of out/validators): links the module's
// generated validation to its closures (metadata, rules, CEL, each built on its first call from its
// recipe) and to the structure defaulting and pruning walk. Builds no schema tree and generates no
// code: the schema was compiled when the module was generated (codegen-module.ts).
import type { CelRuleEngine, CompiledValidator, FieldError, ResourceContext, Schema } from './types.ts';
import { H, type Helpers } from './codegen-runtime.ts';
import { applyDefaults, prune, type StructNode } from './defaults-prune.ts';
import { buildClosure, type Check, type ClosureEnv, type ClosureRecipe } from './closures.ts';
import { isStackOverflow, rootRunner, TOO_DEEP, type RootFn } from './run.ts';
import { nestingLimit, tooDeepField } from './too-deep.ts';
import { findDuplicateFields } from './duplicate-fields.ts';
import type { CompiledCelFast } from './cel-aot-runtime.ts';

/** One node of the structure defaulting and pruning walk (short keys: the data ships with every kind). */
export interface StructEntry {
  /** Properties in schema order: name and entry index. */
  p?: [string, number][];
  /** additionalProperties (a schema). */
  a?: number;
  /** additionalProperties: true. */
  ay?: 1;
  i?: number;
  /** The $ref target of a wrapper. */
  t?: number;
  /** The node's own default. */
  d?: unknown;
  /** nullable. */
  n?: 1;
  /** The node or a descendant has a default. */
  h?: 1;
  e?: 1;
  /** x-cluster-preserve-unknown-fields. */
  pr?: 1;
  /** A definition (a $ref target). */
  def?: 1;
  /** type: object. */
  o?: 1;
}

/** What a module links at run time (the JSON written beside it). */
export interface StandaloneData {
  root: Schema;
  /** The definitions the root reaches, by name. */
  definitions: Record<string, Schema>;
  closures: ClosureRecipe[];
  /** Entry 0 is the root. */
  structure: StructEntry[];
  isResource: boolean;
}

/** The functions of the shared module (definitions several kinds reach), by definition name. */
export type SharedValidators = Readonly<Record<string, RootFn>>;

/**
 * A module's generated validation: given the closures, the helpers, the shared functions and the
 * compiled CEL rules its guards call (none when they must not answer), the root validator.
 */
export type ModuleValidation = (R: readonly Check[], H: Helpers, S: SharedValidators, C: readonly CompiledCelFast[]) => RootFn;

/** What the shared module links at run time: its closures, and the schemas they read. */
export type SharedData = Pick<StandaloneData, 'root' | 'definitions' | 'closures'>;

/** The shared module (out/validators/shared.ts): linked into every kind's validator with that validator's options. */
export interface SharedModule {
  validation: (R: readonly Check[], H: Helpers, C: readonly CompiledCelFast[]) => SharedValidators;
  data: SharedData;
  compiledCel: readonly CompiledCelFast[];
}

export interface LinkOptions {
  resource?: ResourceContext;
  /** Every gate the rules read (the caller merges its overrides over the defaults). */
  featureGates?: Record<string, boolean>;
  cel?: CelRuleEngine;
  celErrorValue?: 'type' | 'value';
  /** The module's CEL rules compiled to JavaScript (cel-aot.ts); the interpreter answers wherever one does not return true. */
  compiledCel?: readonly CompiledCelFast[];
  /** Check every true of a compiled rule against the interpreter, throwing where they disagree (tests). */
  verifyCompiledCel?: boolean;
  /** The shared module the validation calls (required when it calls any). */
  shared?: SharedModule;
}

export interface ValidateOptions {
  /**
   * Also report what `fieldValidation=Strict` rejects: every field the schema does not know
   * (`unknown field "spec.foo"`) and, for a JSON text, every repeated key (`duplicate field "metadata.name"`).
   */
  strict?: boolean;
}

export interface StandaloneValidator extends CompiledValidator {
  validate(obj: unknown, options?: ValidateOptions): FieldError[];
  validateUpdate(obj: unknown, old: unknown, options?: ValidateOptions): FieldError[];
  /** Parses a JSON text, then validates it (as an update when `old` is given); never throws. */
  validateJSON(text: string, options?: ValidateOptions & { old?: unknown }): FieldError[];
}

/** upstream's strict decoding finding at a path (the message is what `strict decoding error:` lists). */
function strictError(path: string, what: 'unknown' | 'duplicate'): FieldError {
  return { field: path, reason: 'FieldValueInvalid', message: `${what} field ${JSON.stringify(path)}` };
}

function linkStructure(entries: StructEntry[]): StructNode {
  const nodes: StructNode[] = entries.map((e) => ({
    props: null, additional: null, additionalAny: e.ay === 1, items: null, preserve: e.pr === 1, embedded: e.e === 1, target: null,
    local: { default: e.d, nullable: e.n === 1 }, hasDefaults: e.h === 1, isDef: e.def === 1, schema: e.o === 1 ? { type: 'object' } : {},
  }));
  entries.forEach((e, i) => {
    const n = nodes[i];
    if (e.p) n.props = new Map(e.p.map(([k, j]) => [k, nodes[j]]));
    if (e.a !== undefined) n.additional = nodes[e.a];
    if (e.i !== undefined) n.items = nodes[e.i];
    if (e.t !== undefined) n.target = nodes[e.t];
  });
  return nodes[0];
}

/**
 * The closures a module's validation calls as `R[i]`: each slot builds its closure on the first call
 * and puts it in its own place, so that later calls reach the closure directly (one call site per
 * slot, not one wrapper every closure goes through).
 */
function selfReplacingClosures(recipes: readonly ClosureRecipe[], env: ClosureEnv): Check[] {
  const slots: Check[] = [];
  recipes.forEach((r, i) => {
    let fn: Check | undefined; // built once, also for code that kept the first slot's function
    slots.push((v, old, ctx) => {
      fn ??= buildClosure(r, env);
      slots[i] = fn;
      fn(v, old, ctx);
    });
  });
  return slots;
}

/** Links a module's validation and data into a validator. */
export function linkValidator(validation: ModuleValidation, data: StandaloneData, options: LinkOptions = {}): StandaloneValidator {
  const env: ClosureEnv = {
    root: data.root, definitions: data.definitions, resource: options.resource, cel: options.cel, celErrorValue: options.celErrorValue ?? 'type',
    compiledCel: options.compiledCel, verifyCompiledCel: options.verifyCompiledCel,
  };
  const shared = options.shared;
  const sharedEnv: ClosureEnv | null = shared ? { ...env, root: shared.data.root, definitions: shared.data.definitions, compiledCel: shared.compiledCel } : null;
  // verifying: no guard answers for a CEL closure, so that each compiled rule's true meets the interpreter
  const guardCel = (c: readonly CompiledCelFast[] | undefined): readonly CompiledCelFast[] => (options.verifyCompiledCel ? [] : c ?? []);
  const S: SharedValidators = shared && sharedEnv
    ? shared.validation(selfReplacingClosures(shared.data.closures, sharedEnv), H, guardCel(shared.compiledCel))
    : {};
  const rootFn = validation(selfReplacingClosures(data.closures, env), H, S, guardCel(options.compiledCel));
  const root = linkStructure(data.structure);
  const isResource = data.isResource;
  const tooDeepAt = (obj: unknown): string => tooDeepField(data.root, data.definitions, obj);
  const run = rootRunner(rootFn, options.featureGates ?? {}, tooDeepAt);
  const unknownFields = (obj: unknown): FieldError[] => {
    const paths: string[] = [];
    try {
      prune(root, obj, '', true, isResource, paths, true);
    } catch (e) {
      if (!isStackOverflow(e)) throw e;
      return [{ ...TOO_DEEP, field: tooDeepAt(obj) }];
    }
    return paths.map((p) => strictError(p, 'unknown'));
  };
  const tooDeep = nestingLimit(data.root, data.definitions);
  const check = (obj: unknown, old: unknown, update: boolean, strict: boolean): FieldError[] => {
    const deep = tooDeep(obj);
    if (deep) return [deep];
    const errs = run(obj, old, update);
    return strict ? [...unknownFields(obj), ...errs] : errs;
  };
  return {
    validate: (obj, o) => check(obj, undefined, false, o?.strict === true),
    validateUpdate: (obj, old, o) => check(obj, old, true, o?.strict === true),
    validateJSON(text, o) {
      let obj: unknown;
      try {
        obj = JSON.parse(text);
      } catch {
        // not the parser's message: it quotes the text, which may be a Secret's
        return [{ field: '', reason: 'FieldValueInvalid', message: 'Invalid value: the text is not valid JSON' }];
      }
      const strict = o?.strict === true;
      const dups = strict ? findDuplicateFields(text).map((p) => strictError(p, 'duplicate')) : [];
      const errs = o?.old !== undefined ? check(obj, o.old, true, strict) : check(obj, undefined, false, strict);
      return dups.length ? [...dups, ...errs] : errs;
    },
    applyDefaults(obj) {
      applyDefaults(root, obj);
    },
    prune(obj) {
      const out: string[] = [];
      prune(root, obj, '', true, isResource, out);
      return out;
    },
  };
}
