// x-cluster-validations: compile a rule against the schema node that carries it, evaluate it.

import {
  CelCompileError,
  type CelRuleCost,
  type CelRuleEngine,
  type CelRuleResult,
  type CompiledCelRule,
  type FieldErrorReason,
  type Schema,
  type ValidationRule,
} from '../schema/types.ts';
import {
  CelCostLimitError,
  CelEnvironment,
  Optional,
  type AstView,
  type CompiledExpression,
} from './engine.ts';
import { estimateCost, PER_CALL_COST_LIMIT, STATIC_ESTIMATED_COST_LIMIT } from './cost.ts';
import {
  bindClasses,
  buildShapes,
  celTypeOf,
  escapePropertyName,
  objectTypeDefs,
  resolveRef,
  toCel,
  type Shape,
} from './schema-types.ts';
import './libraries.ts';

export interface CelRuleEngineOptions {
  /** Runtime budget of one evaluation (node evaluations + library costs). Default 1,000,000. */
  perCallLimit?: number;
  /** Static estimate limit per rule (one evaluation); rules estimated above it fail to compile. Default 10,000,000. */
  maxEstimatedCost?: number;
  /**
   * Whether a schema node is a resource (root object or embedded resource), where `apiVersion`,
   * `kind`, `metadata.name` and `metadata.generateName` are visible and other metadata is not.
   * Default: x-cluster-embedded-resource, or an object declaring `metadata` with `apiVersion` or `kind`.
   */
  isResource?: (schema: Schema) => boolean;
  /** Reasons a rule may name beyond the four of ValidationRule (the built-in spec also uses FieldValueNotSupported). */
  extraReasons?: FieldErrorReason[];
  /** Accept `message: ''` (a bare `Required value`, as upstream's built-in validation words some errors). */
  allowEmptyMessage?: boolean;
}

/** The compiled rule, with the static estimate (for the per-CRD total the caller sums). */
export interface CompiledValidationRule extends CompiledCelRule {
  readonly estimatedCost: number;
  readonly rule: ValidationRule;
}

export const RUNTIME_COST_ERROR = 'validation failed due to running out of cost budget, no further validation rules will be run';

const KNOWN_REASONS = new Set<FieldErrorReason>(['FieldValueInvalid', 'FieldValueForbidden', 'FieldValueRequired', 'FieldValueDuplicate']);

export function defaultIsResource(s: Schema): boolean {
  if (s['x-cluster-embedded-resource']) return true;
  const p = s.properties;
  return !!p && 'metadata' in p && ('apiVersion' in p || 'kind' in p);
}

interface ScopeEnv {
  env: CelEnvironment;
  root: Shape;
}

export function createCelRuleEngine(options: CelRuleEngineOptions = {}): CelRuleEngine & {
  compileRule(rule: ValidationRule, scope: Schema, definitions: Record<string, Schema>): CompiledValidationRule;
} {
  const perCallLimit = options.perCallLimit ?? PER_CALL_COST_LIMIT;
  const maxEstimated = options.maxEstimatedCost ?? STATIC_ESTIMATED_COST_LIMIT;
  const isResource = options.isResource ?? defaultIsResource;
  const reasons = new Set<FieldErrorReason>([...KNOWN_REASONS, ...(options.extraReasons ?? [])]);
  const cache = new WeakMap<Record<string, Schema>, WeakMap<Schema, Map<string, ScopeEnv>>>();

  const scopeEnv = (scope: Schema, defs: Record<string, Schema>, oldSelfOptional: boolean): ScopeEnv => {
    let byScope = cache.get(defs);
    if (!byScope) cache.set(defs, (byScope = new WeakMap()));
    let variants = byScope.get(scope);
    if (!variants) byScope.set(scope, (variants = new Map()));
    const key = oldSelfOptional ? 'optional' : 'plain';
    const hit = variants.get(key);
    if (hit) return hit;
    const { root, types } = buildShapes(scope, { definitions: defs, isResource });
    const selfType = celTypeOf(root);
    const env = new CelEnvironment({
      types: objectTypeDefs(types),
      variables: { self: selfType, oldSelf: oldSelfOptional ? `optional<${selfType}>` : selfType },
    });
    bindClasses(types, env);
    const made = { env, root };
    variants.set(key, made);
    return made;
  };

  return {
    compileRule(rule: ValidationRule, scope: Schema, definitions: Record<string, Schema>): CompiledValidationRule {
      if (typeof rule.rule !== 'string' || rule.rule.trim() === '') throw new CelCompileError('rule: Required value: rule is not specified');
      if (rule.message !== undefined) {
        if (rule.message.trim() === '' && !(options.allowEmptyMessage && rule.message === '')) throw new CelCompileError('message: Invalid value: message must be non-empty if specified');
        if (/[\r\n]/.test(rule.message)) throw new CelCompileError('message: Invalid value: message must not contain line breaks');
      }
      if (rule.message === undefined && /[\r\n]/.test(rule.rule))
        throw new CelCompileError('message: Required value: message must be specified if rule contains line breaks');
      if (rule.messageExpression !== undefined && rule.messageExpression.trim() === '')
        throw new CelCompileError('messageExpression: Required value: messageExpression must be non-empty if specified');
      if (rule.reason !== undefined && !reasons.has(rule.reason as FieldErrorReason))
        throw new CelCompileError(
          `reason: Unsupported value: "${rule.reason}": supported values: ${[...reasons].sort().map((r) => `"${r}"`).join(', ')}`,
        );
      const resolved = scope.$ref ? resolveRef(scope, definitions) : scope;
      if (rule.fieldPath !== undefined) validateFieldPath(rule.fieldPath, resolved, definitions);

      const { env, root } = scopeEnv(scope, definitions, rule.optionalOldSelf === true);
      const compiled = env.compile(rule.rule);
      if (compiled.type !== 'bool') throw new CelCompileError(`compilation failed: cel expression must evaluate to a bool, got ${compiled.type}`);
      const view = compiled.view();
      const usesOldSelf = referencesVar(view, 'oldSelf');
      if (rule.optionalOldSelf && !usesOldSelf)
        throw new CelCompileError('optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule');

      let msgExpr: CompiledExpression | undefined;
      if (rule.messageExpression !== undefined) {
        try {
          msgExpr = env.compile(rule.messageExpression);
        } catch (e) {
          if (e instanceof CelCompileError) throw new CelCompileError(`messageExpression ${e.message}`, e.position);
          throw e;
        }
        if (msgExpr.type !== 'string')
          throw new CelCompileError('messageExpression: Invalid value: must evaluate to a string');
        if (!rule.optionalOldSelf && referencesVar(msgExpr.view(), 'oldSelf') && !usesOldSelf)
          throw new CelCompileError('messageExpression: Invalid value: oldSelf may only be used in messageExpression if the rule uses it');
      }

      const estimatedCost = estimateCost(view, { self: root, oldSelf: root });
      if (estimatedCost > maxEstimated) {
        const factor = estimatedCost / maxEstimated;
        throw new CelCompileError(
          `estimated rule cost exceeds budget by factor of ${factor >= 100 ? 'more than 100x' : `${factor.toFixed(2)}x`} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
        );
      }
      if (msgExpr) {
        const msgCost = estimateCost(msgExpr.view(), { self: root, oldSelf: root });
        if (msgCost > maxEstimated)
          throw new CelCompileError(
            `messageExpression: estimated messageExpression cost exceeds budget by factor of ${(msgCost / maxEstimated).toFixed(2)}x (try simplifying the messageExpression, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
          );
      }

      const reason: FieldErrorReason = (rule.reason as FieldErrorReason | undefined) ?? 'FieldValueInvalid';
      const staticMessage = rule.message ?? `failed rule: ${rule.rule.trim()}`;
      const optionalOld = rule.optionalOldSelf === true;

      return {
        rule,
        estimatedCost,
        isTransitionRule: usesOldSelf,
        evaluate(self: unknown, oldSelf: unknown, spent?: CelRuleCost): CelRuleResult {
          if (usesOldSelf && !optionalOld && oldSelf === undefined) return { ok: true };
          const vars: Record<string, unknown> = { self: toCel(self, root) };
          if (usesOldSelf || optionalOld) {
            const old = oldSelf === undefined ? undefined : toCel(oldSelf, root);
            vars.oldSelf = optionalOld ? (old === undefined || old === null ? Optional.none() : Optional.of(old)) : old;
          }
          let result: unknown;
          const ruleSpent = { cost: 0 };
          try {
            result = compiled.evaluate(vars, perCallLimit, ruleSpent);
          } catch (e) {
            if (spent) Object.assign(spent, { cost: ruleSpent.cost, perCallLimitExceeded: e instanceof CelCostLimitError });
            if (e instanceof CelCostLimitError) return { ok: false, error: RUNTIME_COST_ERROR };
            return { ok: false, error: errorText(e) };
          }
          if (spent) spent.cost = ruleSpent.cost;
          if (result === true) return { ok: true };
          if (result !== false) return { ok: false, error: `rule did not evaluate to a bool: ${String(result)}` };
          let message = staticMessage;
          if (msgExpr) {
            const msgSpent = { cost: 0 };
            try {
              const m = msgExpr.evaluate(vars, perCallLimit, msgSpent);
              if (typeof m === 'string' && m.trim() !== '' && !/[\r\n]/.test(m)) message = m;
            } catch {
              // falls back to message (upstream logs the error)
            }
            if (spent) spent.messageCost = msgSpent.cost;
          }
          const out: CelRuleResult = { ok: false, message, reason };
          if (rule.fieldPath !== undefined) out.fieldPath = rule.fieldPath;
          return out;
        },
      };
    },
  };
}

function errorText(e: unknown): string {
  const err = e as { summary?: string; message?: string };
  return err?.summary ?? err?.message ?? String(e);
}

function referencesVar(v: AstView, name: string): boolean {
  if (v.op === 'id' && v.value === name) return true;
  for (const c of v.children) if (referencesVar(c, name)) return true;
  if (v.comprehension) {
    const c = v.comprehension;
    if (c.iterVars.includes(name)) return false;
    for (const x of [c.range, ...c.step, ...c.other]) if (referencesVar(x, name)) return true;
  }
  return false;
}

/** fieldPath: `.a.b`, `.a['b.c']`, `['x']`; no numeric indexes; must name an existing field. */
export function validateFieldPath(path: string, scope: Schema, defs: Record<string, Schema>): void {
  const fail = (why: string): never => {
    throw new CelCompileError(`fieldPath: Invalid value: "${path}": ${why}`);
  };
  let cur: Schema = scope;
  let i = 0;
  if (path === '') fail('fieldPath must not be empty');
  while (i < path.length) {
    let name: string;
    if (path[i] === '.') {
      const m = /^\.([a-zA-Z_$][a-zA-Z0-9_$\-]*)/.exec(path.slice(i));
      if (!m) fail('invalid path syntax');
      name = m![1];
      i += m![0].length;
    } else if (path[i] === '[') {
      const m = /^\[\s*'((?:[^'\\]|\\.)*)'\s*\]/.exec(path.slice(i));
      if (!m) fail('numeric list indexes are not supported; use [\'name\'] for names with special characters');
      name = m![1].replace(/\\(.)/g, '$1');
      i += m![0].length;
    } else {
      return fail('invalid path syntax');
    }
    if (cur.$ref) cur = resolveRef(cur, defs);
    if (cur.type === 'array' && cur.items) {
      cur = cur.items.$ref ? resolveRef(cur.items, defs) : cur.items;
    }
    const next: Schema | undefined =
      cur.properties?.[name] ??
      (typeof cur.additionalProperties === 'object' && cur.additionalProperties !== null ? cur.additionalProperties : undefined);
    if (!next) return fail(`does not refer to a valid field: ${name}`);
    if (escapePropertyName(name) === undefined && !cur.additionalProperties) fail(`does not refer to a valid field: ${name}`);
    cur = next;
  }
}
