// Public API of the CEL layer.

import { CelCompileError } from '../schema/types.ts';
import { CelCostLimitError, CelEnvironment, type CelTypeDecl, type CompiledExpression } from './engine.ts';
import { PER_CALL_COST_LIMIT } from './cost.ts';
import { jsonToDyn } from './schema-types.ts';
import { createCelRuleEngine } from './rules.ts';
import './libraries.ts';

export { createCelRuleEngine, defaultIsResource, RUNTIME_COST_ERROR, validateFieldPath } from './rules.ts';
export type { CelRuleEngineOptions, CompiledValidationRule } from './rules.ts';
export { estimateCost, PER_CALL_COST_LIMIT, RUNTIME_CEL_COST_BUDGET, STATIC_ESTIMATED_COST_LIMIT, PER_CRD_COST_LIMIT, MAX_REQUEST_SIZE_BYTES } from './cost.ts';
export { escapePropertyName, unescapePropertyName, jsonToDyn } from './schema-types.ts';
export { CelCostLimitError, CelEnvironment, celEquals } from './engine.ts';
export type { CelTypeDecl, CompiledExpression } from './engine.ts';

export interface CompiledGenericExpression {
  /** The checked result type (`bool`, `string`, `dyn`...). */
  readonly type: string;
  /**
   * Evaluates with JSON-shaped variables (converted as dyn: integers -> int, objects -> maps).
   * Throws CelCostLimitError over the budget, or an Error for CEL runtime errors.
   */
  evaluate(vars: Record<string, unknown>, costLimit?: number): unknown;
}

/**
 * Compiles an expression over the given variables (e.g. webhook matchConditions with
 * `object`, `oldObject`, `request` declared as `dyn` or `map<string, dyn>`). Throws CelCompileError.
 */
export function compileExpression(expr: string, variables: Record<string, CelTypeDecl>): CompiledGenericExpression {
  const env = new CelEnvironment({ variables });
  const compiled: CompiledExpression = env.compile(expr);
  return {
    type: compiled.type,
    evaluate(vars: Record<string, unknown>, costLimit = PER_CALL_COST_LIMIT): unknown {
      const converted: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(vars)) converted[k] = jsonToDyn(v);
      return compiled.evaluate(converted, costLimit);
    },
  };
}

export { CelCompileError };

/** A shared rule engine with upstream's limits (what generated validators import). */
export const celRuleEngine = createCelRuleEngine();
export const isCostLimitError = (e: unknown): e is CelCostLimitError => e instanceof CelCostLimitError;

/**
 * The engine for the spec's own rules of the built-in resources: neither a static cost cap nor a
 * runtime budget, because upstream checks these in Go without one (a built-in object must validate
 * whatever its size); inputs are bounded by the 3 MiB request limit, and the spec keeps its rules
 * linear (per item, correlated by key, not over every pair). CRD schemas use `celRuleEngine` or
 * runtime/crd's engine, with upstream's per-call budget (the CRD generator drops and lists the
 * built-in rules that would not pass the estimate).
 */
export const builtinCelRuleEngine = createCelRuleEngine({
  maxEstimatedCost: Number.POSITIVE_INFINITY,
  perCallLimit: Number.POSITIVE_INFINITY,
  extraReasons: ['FieldValueNotSupported'],
  allowEmptyMessage: true,
});
