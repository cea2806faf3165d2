// The CEL check of one schema node (x-cluster-validations): every rule compiled against the node's
// schema when the tree is built, evaluated in order at validation; errors as upstream reports them
// (the rule's fieldPath, reason and message; for CRDs the schema type as the value, for the built-in
// types the value itself).
import type { CelRuleCost, CelRuleEngine, CompiledCelRule, FieldErrorReason, Schema } from './types.ts';
import type { ValidationContext } from './context.ts';
import { CelCompileError } from './types.ts';
import { fieldErr, NIL_COLLECTION } from './errors.ts';
import { hasOwn, isObject } from './rules/util.ts';
import { SchemaCompileError } from './compile-error.ts';
import type { Check } from './closures.ts';
import type { CompiledCelFast } from './cel-aot-runtime.ts';

export interface CelCheckEnv {
  cel: CelRuleEngine | undefined;
  definitions: Record<string, Schema>;
  celErrorValue: 'type' | 'value';
  /** The schema the rules see (a $ref wrapper's local keywords see the referenced structure). */
  scope: Schema | undefined;
  resolve: (s: Schema) => Schema;
  /** The rules compiled to JavaScript (cel-aot.ts), by rule index; null where a rule is not. */
  fast?: readonly (CompiledCelFast | null)[];
  /** Evaluate with the interpreter too where a compiled rule answered, and throw if they disagree (tests). */
  verifyFast?: boolean;
  /** A rule that does not compile: thrown (default) or reported on each validation (CompileOptions.celCompileErrors). */
  compileErrors?: 'throw' | 'report';
}

/** A rule that did not compile, reported at its node on every validation (upstream's stored CRDs). */
function uncompiledRule(error: string): CompiledCelRule {
  return { isTransitionRule: false, evaluate: () => ({ ok: false, error: `rule compile error: ${error}` }) };
}

/** The node's CEL rules as one check; null when it has none. */
export function compileCelCheck(s: Schema, ptr: string, env: CelCheckEnv): Check | null {
  const { cel, definitions, celErrorValue, resolve, verifyFast } = env;
  const fast = env.fast ?? [];
  const rules = s['x-cluster-validations'];
  if (rules === undefined) return null;
  if (!Array.isArray(rules)) throw new SchemaCompileError(ptr + '/x-cluster-validations', 'x-cluster-validations must be a list');
  if (rules.length === 0) return null;
  if (!cel) throw new SchemaCompileError(ptr + '/x-cluster-validations', 'the schema has CEL rules (x-cluster-validations) but no CEL engine was given');
  const scope = env.scope ?? resolve(s);
  const typeValue = s['x-cluster-int-or-string'] ? 'integer-or-string' : scope.type ?? '';
  const compiled: { rule: CompiledCelRule; text: string; fieldPath: string[] | null; optionalOld: boolean; reason?: string; message?: string }[] = [];
  rules.forEach((r, i) => {
    const rp = `${ptr}/x-cluster-validations/${i}`;
    if (!isObject(r) || typeof r.rule !== 'string') throw new SchemaCompileError(rp, 'a validation rule must have a string `rule`');
    let c: CompiledCelRule;
    try {
      c = cel.compileRule(r, scope, definitions);
    } catch (e) {
      const msg = e instanceof CelCompileError || e instanceof Error ? e.message : String(e);
      if (env.compileErrors !== 'report') throw new SchemaCompileError(rp + '/rule', `compilation failed: ${msg}`);
      c = uncompiledRule(msg);
    }
    compiled.push({
      rule: c, text: r.rule.trim(), fieldPath: r.fieldPath ? parseFieldPath(r.fieldPath, rp) : null,
      optionalOld: r.optionalOldSelf === true, reason: r.reason, message: r.message,
    });
  });
  const n = compiled.length;
  const spent: CelRuleCost = { cost: 0 };
  return (v, old, ctx) => {
    // A finite budget (custom resources) is charged each evaluation's actual cost, as upstream's
    // RuntimeCELCostBudget; once it ran out no further rule of the object runs.
    const budgeted = ctx.celBudget !== Number.POSITIVE_INFINITY;
    if (budgeted && ctx.celBudget <= 0) {
      if (ctx.celBudget === 0) outOfBudget(ctx, ctx.path(), typeValue, RUNTIME_BUDGET_ERROR);
      return;
    }
    for (let i = 0; i < n; i++) {
      const c = compiled[i];
      if (c.rule.isTransitionRule && !c.optionalOld && (!ctx.update || old === undefined)) continue;
      const f = budgeted ? undefined : fast[i];
      if (f && fastTrue(f, v, old)) {
        if (verifyFast && !c.rule.evaluate(v, old).ok) throw new Error(`compiled CEL rule ${JSON.stringify(c.text)} answered true where the interpreter does not`);
        continue;
      }
      spent.cost = 0;
      spent.messageCost = undefined;
      spent.perCallLimitExceeded = false;
      const res = c.rule.evaluate(v, old, budgeted ? spent : undefined);
      if (budgeted) {
        if (spent.cost > ctx.celBudget) return outOfBudget(ctx, ctx.path(), typeValue, RUNTIME_BUDGET_ERROR);
        ctx.celBudget -= spent.cost;
      }
      if (res.ok) continue;
      let field = ctx.path();
      if ('error' in res) {
        // upstream words a rule past its per-call limit so, and runs no further rule
        if (budgeted && spent.perCallLimitExceeded) return outOfBudget(ctx, field, typeValue, perCallError(c.message?.trim() || c.text));
        ctx.add(fieldErr.invalid(field, celErrorValue === 'value' ? v : typeValue, res.error));
        continue;
      }
      const fp = res.fieldPath ? parseFieldPath(res.fieldPath, ptr) : c.fieldPath;
      if (fp) for (const seg of fp) field = field === '' ? seg : seg.startsWith('[') ? field + seg : `${field}.${seg}`;
      if (budgeted && spent.messageCost !== undefined) {
        if (spent.messageCost > ctx.celBudget) return outOfBudget(ctx, field, typeValue, MESSAGE_BUDGET_ERROR);
        ctx.celBudget -= spent.messageCost;
      }
      const reason: FieldErrorReason = res.reason ?? (c.reason as FieldErrorReason | undefined) ?? 'FieldValueInvalid';
      const message = res.message || (c.message === '' ? '' : c.message || `failed rule: ${c.text}`);
      const shown = celErrorValue === 'value' ? goValueAt(v, fp, scope, resolve) : typeValue;
      ctx.add(fieldErr.ofReason(field, knownReason(reason), shown, message));
    }
  };
}

/** Upstream's errors when the per-object budget runs out during a rule or its messageExpression. */
const RUNTIME_BUDGET_ERROR = 'validation failed due to running out of cost budget, no further validation rules will be run';
const MESSAGE_BUDGET_ERROR = 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run';

/** Upstream's error for a rule past the per-call limit (cel-go's cancellation, then the rule's message or text). */
const perCallError = (rule: string): string =>
  `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${rule}`;

/** Reports the budget's end (Invalid, the schema type as the value, as upstream) and stops every further rule. */
function outOfBudget(ctx: ValidationContext, field: string, typeValue: string, message: string): void {
  ctx.add(fieldErr.invalid(field, typeValue, message));
  ctx.celBudget = -1;
}

/** Whether a compiled rule answers true (anything else, BAIL included, leaves it to the interpreter). */
function fastTrue(f: CompiledCelFast, v: unknown, old: unknown): boolean {
  try {
    return f(v, old) === true;
  } catch {
    return false;
  }
}

function knownReason(r: string): FieldErrorReason {
  switch (r) {
    case 'FieldValueRequired': case 'FieldValueInvalid': case 'FieldValueTypeInvalid': case 'FieldValueNotSupported':
    case 'FieldValueForbidden': case 'FieldValueTooLong': case 'FieldValueTooMany': case 'FieldValueDuplicate':
    case 'FieldValueNotFound': case 'InternalError':
      return r;
    default:
      return 'FieldValueInvalid';
  }
}

/** The value a CEL rule's fieldPath names inside the rule's own value (undefined when absent). */
function valueAt(v: unknown, fp: string[] | null): unknown {
  let cur = v;
  for (const seg of fp ?? []) cur = isObject(cur) && hasOwn(cur, seg) ? cur[seg] : undefined;
  return cur;
}

/**
 * The value at a CEL rule's fieldPath as upstream's Go validation shows it: a map (a schema with
 * only additionalProperties) has its keys sorted, as json.Marshal prints a Go map, and an absent map
 * or list is a typed nil, printed as a bare `null`.
 */
function goValueAt(v: unknown, fp: string[] | null, scope: Schema, resolve: (s: Schema) => Schema): unknown {
  const value = valueAt(v, fp);
  let s: Schema | undefined = scope;
  for (const seg of fp ?? []) {
    if (!s) break;
    const props: Record<string, Schema> | undefined = s.properties;
    if (props && hasOwn(props, seg)) s = resolve(props[seg]);
    else if (isObject(s.additionalProperties)) s = resolve(s.additionalProperties as Schema);
    else s = undefined;
  }
  if (!s) return value;
  const isMap = s.type === 'object' && !s.properties && isObject(s.additionalProperties);
  if (value === undefined && (isMap || s.type === 'array')) return NIL_COLLECTION;
  if (isMap && isObject(value)) return Object.fromEntries(Object.keys(value).sort().map((k) => [k, value[k]]));
  return value;
}

/** `.a.b`, `['a.b']`, `.a['x-y']` -> segments (`a`, `b`); numeric indexes are not allowed. */
function parseFieldPath(fp: string, ptr: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < fp.length) {
    if (fp[i] === '.') {
      const m = /^\.([^.[\]]+)/.exec(fp.slice(i));
      if (!m) throw new SchemaCompileError(ptr + '/fieldPath', `invalid fieldPath ${JSON.stringify(fp)}`);
      out.push(m[1]);
      i += m[0].length;
    } else if (fp[i] === '[') {
      const m = /^\[\s*'((?:[^'\\]|\\.)*)'\s*\]/.exec(fp.slice(i));
      if (!m) throw new SchemaCompileError(ptr + '/fieldPath', `invalid fieldPath ${JSON.stringify(fp)} (numeric list indexes are not supported)`);
      out.push(m[1].replace(/\\(.)/g, '$1'));
      i += m[0].length;
    } else if (i === 0) {
      const m = /^([^.[\]]+)/.exec(fp);
      out.push(m![1]);
      i += m![0].length;
    } else {
      throw new SchemaCompileError(ptr + '/fieldPath', `invalid fieldPath ${JSON.stringify(fp)}`);
    }
  }
  return out;
}
