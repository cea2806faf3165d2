// Compiling every x-cluster-validations rule of a CRD version's schema when the CRD is written
// (upstream apiextensions validation + apiserver/schema/cel): compile errors with the rule's path
// and position, transition rules on uncorrelatable parts, and the estimated costs: each rule's
// estimate times the number of times it can run (the product of maxItems/maxProperties of the
// lists and maps above it, or what fits in a request when unbounded), summed for the per-CRD limit.
import { CelCompileError, STATIC_ESTIMATED_COST_LIMIT, PER_CRD_COST_LIMIT, MAX_REQUEST_SIZE_BYTES } from '../cel/index.ts';
import { fieldErr } from '../schema/errors.ts';
import type { FieldError, FieldErrorReason, Schema, ValidationRule } from '../schema/types.ts';
import { crdRuleEngine, markResourceRoot } from './cel-engine.ts';
import { isObject } from '../json/is-object.ts';

type Node = Record<string, unknown>;

export interface RuleCost {
  /** `spec.versions[0].schema.openAPIV3Schema.properties[spec].x-cluster-validations[0].rule` */
  path: string;
  /** The rule's own estimate (one evaluation). */
  estimatedCost: number;
  /** How many times the rule can run for one object (1 at the root). */
  cardinality: number;
  /** estimatedCost x cardinality, as added to the total. */
  cost: number;
}

export interface RuleCompileResult {
  errors: FieldError[];
  rules: RuleCost[];
  totalCost: number;
}

export interface RuleCompileOptions {
  /** Limit of one rule's estimated cost (default STATIC_ESTIMATED_COST_LIMIT, as upstream). */
  perRuleLimit?: number;
  /** Whether the per-rule limit applies to the estimate times its cardinality (default true, as upstream). */
  perRuleWithCardinality?: boolean;
  /** Limit of the summed cost of all rules of the schema (default PER_CRD_COST_LIMIT). */
  totalLimit?: number;
}

/** Upstream's cost message (getCostErrorMessage). */
export function costErrorMessage(what: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const f = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${what} exceeds budget by factor of ${f} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/** The minimum JSON size of a value of this schema (upstream DeclType.MinSerializedSize). */
function minSerializedSize(s: Node): number {
  if (s['x-cluster-int-or-string'] === true) return 1;
  switch (s.type) {
    case 'string':
      return 2;
    case 'boolean':
      return 4;
    case 'integer':
    case 'number':
      return 1;
    case 'object':
    case 'array':
      return 2;
    default:
      return 1;
  }
}

/** How many values of this schema fit in the largest request (one comma between values). */
function unboundedCardinality(s: Node): number {
  return Math.floor(MAX_REQUEST_SIZE_BYTES / (minSerializedSize(s) + 1));
}

/** The rule as a Go struct prints as a field error value (JSON, fields in declaration order). */
function ruleValue(r: unknown): Record<string, unknown> {
  if (!isObject(r)) return {};
  const out: Record<string, unknown> = {};
  for (const k of ['rule', 'message', 'messageExpression', 'reason', 'fieldPath', 'optionalOldSelf']) {
    if (r[k] !== undefined && r[k] !== '') out[k] = r[k];
  }
  return out;
}

const PREFIXED = /^(rule|message|messageExpression|reason|fieldPath|optionalOldSelf): (Required value|Invalid value|Unsupported value|Forbidden)(?:: (.*))?$/s;

/** Turns an engine compile error into upstream's field error under `x-cluster-validations[i]`. */
function compileErrorToField(rp: string, rule: unknown, e: Error): FieldError {
  const msg = e.message;
  const m = PREFIXED.exec(msg);
  if (m && m[1] === 'fieldPath' && isObject(rule) && typeof rule.fieldPath === 'string') {
    return fieldErr.invalid(`${rp}.fieldPath`, rule.fieldPath, 'fieldPath must be a valid path');
  }
  if (m) {
    const f = `${rp}.${m[1]}`;
    const rest = m[3] ?? '';
    switch (m[2]) {
      case 'Required value':
        return fieldErr.required(f, rest);
      case 'Forbidden':
        return fieldErr.forbidden(f, rest);
      case 'Unsupported value': {
        const reason: FieldErrorReason = 'FieldValueNotSupported';
        return { field: f, reason, message: `Unsupported value: ${rest}` };
      }
      default: {
        // `Invalid value: <v>: <detail>` is already rendered by the engine
        return { field: f, reason: 'FieldValueInvalid', message: `Invalid value: ${rest}` };
      }
    }
  }
  if (msg.startsWith('estimated rule cost exceeds budget')) return fieldErr.forbidden(`${rp}.rule`, msg);
  if (msg.startsWith('messageExpression: estimated messageExpression cost')) return fieldErr.forbidden(`${rp}.messageExpression`, msg.slice('messageExpression: '.length));
  if (msg.startsWith('messageExpression ')) return fieldErr.invalid(`${rp}.messageExpression`, ruleValue(rule), msg.slice('messageExpression '.length));
  return fieldErr.invalid(`${rp}.rule`, ruleValue(rule), msg);
}

const SUPPORTED_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
const hasNewlines = (s: string): boolean => /[\n\r]/.test(s);

/** The checks upstream runs on a rule before compiling it (SchemaErrors: they skip compilation). */
function staticRuleErrors(r: Node, rp: string): FieldError[] {
  const out: FieldError[] = [];
  const rule = typeof r.rule === 'string' ? r.rule : '';
  const message = typeof r.message === 'string' ? r.message : '';
  const trimmedRule = rule.trim();
  const trimmedMsg = message.trim();
  if (trimmedRule === '') out.push(fieldErr.required(`${rp}.rule`, 'rule is not specified'));
  else if (message.length > 0 && trimmedMsg === '') out.push(fieldErr.invalid(`${rp}.message`, message, 'message must be non-empty if specified'));
  else if (hasNewlines(trimmedMsg)) out.push(fieldErr.invalid(`${rp}.message`, message, 'message must not contain line breaks'));
  else if (hasNewlines(trimmedRule) && trimmedMsg === '') out.push(fieldErr.required(`${rp}.message`, 'message must be specified if rule contains line breaks'));
  if (typeof r.messageExpression === 'string' && r.messageExpression.length > 0 && r.messageExpression.trim() === '') {
    out.push(fieldErr.required(`${rp}.messageExpression`, 'messageExpression must be non-empty if specified'));
  }
  if (r.reason !== undefined && r.reason !== null && !SUPPORTED_REASONS.includes(String(r.reason))) {
    out.push(fieldErr.notSupported(`${rp}.reason`, r.reason, SUPPORTED_REASONS));
  }
  if (typeof r.fieldPath === 'string') {
    if (r.fieldPath.length > 0 && r.fieldPath.trim() === '') out.push(fieldErr.invalid(`${rp}.fieldPath`, r.fieldPath, 'fieldPath must be non-empty if specified'));
    if (hasNewlines(r.fieldPath)) out.push(fieldErr.invalid(`${rp}.fieldPath`, r.fieldPath, 'fieldPath must not contain line breaks'));
  }
  return out;
}

/** One object for every call: the rule engine caches a scope's CEL environment per definitions object. */
const NO_DEFINITIONS: Record<string, Schema> = {};

/**
 * Compiles every rule of one version's schema. `path` is the schema's field path
 * (`spec.versions[0].schema.openAPIV3Schema`). The schema must be structural (run structural.ts
 * first); rules inside allOf/anyOf/oneOf/not are not visited (structural schemas forbid them).
 */
export function compileSchemaRules(schema: unknown, path: string, opts: RuleCompileOptions = {}): RuleCompileResult {
  const perRuleLimit = opts.perRuleLimit ?? STATIC_ESTIMATED_COST_LIMIT;
  const totalLimit = opts.totalLimit ?? PER_CRD_COST_LIMIT;
  const errors: FieldError[] = [];
  const rules: RuleCost[] = [];
  if (!isObject(schema)) return { errors, rules, totalCost: 0 };
  markResourceRoot(schema as Schema);

  const visit = (s: Node, p: string, cardinality: number | null, uncorrelatable: string | null): void => {
    const list = s['x-cluster-validations'];
    if (Array.isArray(list)) {
      list.forEach((r, i) => {
        const rp = `${p}.x-cluster-validations[${i}]`;
        if (!isObject(r)) {
          errors.push(fieldErr.required(`${rp}.rule`, 'rule is not specified'));
          return;
        }
        const problems = staticRuleErrors(r, rp);
        if (problems.length) {
          errors.push(...problems);
          return;
        }
        let compiled;
        try {
          compiled = crdRuleEngine.compileRule(r as unknown as ValidationRule, s as Schema, NO_DEFINITIONS);
        } catch (e) {
          if (e instanceof CelCompileError || e instanceof Error) errors.push(compileErrorToField(rp, r, e));
          else throw e;
          return;
        }
        const card = cardinality ?? unboundedCardinality(s);
        const cost = compiled.estimatedCost * card;
        const checked = opts.perRuleWithCardinality === false ? compiled.estimatedCost : cost;
        if (checked > perRuleLimit) errors.push(fieldErr.forbidden(`${rp}.rule`, costErrorMessage('estimated rule cost', checked, perRuleLimit)));
        rules.push({ path: `${rp}.rule`, estimatedCost: compiled.estimatedCost, cardinality: card, cost });
        if (compiled.isTransitionRule && uncorrelatable !== null) {
          errors.push(fieldErr.invalid(`${rp}.rule`, r.rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable}`));
        }
      });
    }
    const props = isObject(s.properties) ? s.properties : {};
    for (const k of Object.keys(props).sort()) {
      if (isObject(props[k])) visit(props[k] as Node, `${p}.properties[${k}]`, cardinality, uncorrelatable);
    }
    const mul = (n: unknown): number | null => (cardinality === null || typeof n !== 'number' ? null : cardinality * n);
    if (isObject(s.additionalProperties)) visit(s.additionalProperties, `${p}.additionalProperties`, mul(s.maxProperties), uncorrelatable);
    if (isObject(s.items)) {
      const correlatable = s['x-cluster-list-type'] === 'map';
      visit(s.items, `${p}.items`, mul(s.maxItems), uncorrelatable ?? (correlatable ? null : p));
    }
  };
  visit(schema, path, 1, null);

  const totalCost = rules.reduce((a, r) => a + r.cost, 0);
  if (totalCost > totalLimit) {
    const most = [...rules].sort((a, b) => b.cost - a.cost).slice(0, 4);
    for (const r of most) errors.push(fieldErr.forbidden(r.path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'));
    errors.push(fieldErr.forbidden(path, costErrorMessage('x-cluster-validations estimated rule cost total for entire OpenAPIv3 schema', totalCost, totalLimit)));
  }
  return { errors, rules, totalCost };
}
