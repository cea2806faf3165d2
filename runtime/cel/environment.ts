// Environments and compiled expressions: declare variables and object types, then parse, fix up,
// type-check and instrument once; evaluate under a cost budget. Separate as cel-go keeps cel/env.go.

import type { Environment, TypeCheckResult } from '@marcbachmann/cel-js';
import { CelCompileError } from '../schema/types.ts';
import { viewOf, type AstView, type InternalNode } from './ast.ts';
import { prepareAst } from './check-fixups.ts';
import { celEquals } from './equality.ts';
import { instrument, type LiteralError } from './instrumentation.ts';
import { rewriteMessageSyntax } from './message-syntax.ts';
import { declareProtoTypes, engineFieldTypes, messageClass, type ProtoTypes } from './messages.ts';
import { rewriteOptionalEntries } from './optional-syntax.ts';
import { extensionSourceRewrite, getBaseEnv } from './registrar.ts';
import { evaluateWithBudget } from './runtime-cost.ts';
import { CelObject, type CelTypeDecl, type ObjectTypeDef } from './values.ts';

export interface EnvSpec {
  variables: Record<string, CelTypeDecl>;
  types?: ObjectTypeDef[];
  /** Extension libraries to add by name (installExtension); Kubernetes' environment names none. */
  extensions?: string[];
  /**
   * Mixed-type list and map literals are compile errors (default, as Kubernetes configures cel-go);
   * false types them as list<dyn>/map<dyn, dyn>, as cel-go does without HomogeneousAggregateLiterals.
   */
  homogeneousAggregateLiterals?: boolean;
  /** Protobuf message and enum types the expressions may build and read (messages.ts). */
  protoTypes?: ProtoTypes;
  /** The namespace names resolve in (cel-go's container), e.g. `cel.expr.conformance.proto3`. */
  container?: string;
}

/** A compiled environment: variables and object types declared, ready to compile expressions. */
export class CelEnvironment {
  readonly #env: Environment;
  readonly #typeCtors = new Map<string, typeof CelObject>();
  readonly #container: string;
  readonly #rewriteExtensionSyntax: (src: string) => string;

  constructor(spec: EnvSpec) {
    const base = getBaseEnv(spec.extensions);
    const env = spec.homogeneousAggregateLiterals === false ? base.clone({ homogeneousAggregateLiterals: false }) : base.clone();
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
    if (spec.protoTypes) {
      declareProtoTypes(spec.protoTypes);
      for (const m of spec.protoTypes.messages) {
        env.registerType(m.name, { ctor: messageClass(m.name), fields: engineFieldTypes(m) });
        env.registerOperator(`${m.name} == ${m.name}`, (a: unknown, b: unknown) => celEquals(a, b));
      }
    }
    this.#container = spec.container ?? '';
    this.#rewriteExtensionSyntax = extensionSourceRewrite(spec.extensions ?? []);
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
      parsed = this.#env.parse(rewriteOptionalEntries(rewriteMessageSyntax(this.#rewriteExtensionSyntax(expr), this.#container)));
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
   * size-proportional library costs); exceeding it throws CelCostLimitError. `spent.cost` receives
   * the units used.
   */
  evaluate(vars: Record<string, unknown>, costLimit = Number.POSITIVE_INFINITY, spent?: { cost: number }): unknown {
    return evaluateWithBudget<unknown>(costLimit, () => this.parsed(vars), spent);
  }

  /** The checked AST in a neutral shape (for the static cost estimator). */
  view(): AstView {
    return viewOf(this.parsed.ast as unknown as InternalNode);
  }
}
