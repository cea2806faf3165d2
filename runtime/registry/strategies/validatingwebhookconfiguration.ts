// ValidatingWebhookConfiguration: every matchCondition expression must compile when written, as
// upstream's validateMatchConditionsExpression (pkg/apis/admissionregistration/validation) does. The
// expression, trimmed as Go's strings.TrimSpace trims, is compiled in the environment the dispatcher
// evaluates it in (runtime/admission/match-conditions.ts: object, oldObject, request, authorizer);
// a failure is `webhooks[i].matchConditions[j].expression: Invalid value: "<trimmed>": <compiler text>`.
// An empty expression is the schema's Required error and is not compiled.
//
// On update, as upstream's ignoreValidatingWebhookMatchConditions: nothing is compiled when the
// configuration has as many webhooks as the stored one and each keeps its matchConditions exactly;
// otherwise every expression is (upstream compiles stored expressions in its lenient stored-
// expression environment; the engine here has one environment, so they compile the same way).

import { compileMatchConditions } from '../../admission/match-conditions.ts';
import { fieldErr } from '../../schema/errors.ts';
import type { FieldError } from '../../schema/types.ts';
import { deepEqual, isObj, type Obj } from '../../api/object.ts';
import { goTrimSpace } from '../../go-strings.ts';
import type { Strategy } from '../strategy.ts';

function webhooksOf(obj: Obj): unknown[] {
  return Array.isArray(obj.webhooks) ? obj.webhooks : [];
}

function conditionsOf(webhook: unknown): unknown[] {
  return isObj(webhook) && Array.isArray(webhook.matchConditions) ? webhook.matchConditions : [];
}

/** The compile errors of every matchCondition expression of the configuration. */
export function validateMatchConditionExpressions(obj: Obj): FieldError[] {
  const errs: FieldError[] = [];
  webhooksOf(obj).forEach((webhook, i) => {
    conditionsOf(webhook).forEach((condition, j) => {
      if (!isObj(condition) || typeof condition.expression !== 'string') return; // the schema reports it
      const expression = goTrimSpace(condition.expression);
      if (expression === '') return;
      const name = typeof condition.name === 'string' ? condition.name : '';
      const [compiled] = compileMatchConditions([{ name, expression }]).conditions;
      if (compiled.compileError !== undefined) {
        errs.push(fieldErr.invalid(`webhooks[${i}].matchConditions[${j}].expression`, expression, compiled.compileError));
      }
    });
  });
  return errs;
}

/** upstream ignoreValidatingWebhookMatchConditions: same number of webhooks, each with equal matchConditions. */
export function matchConditionsUnchanged(obj: Obj, old: Obj): boolean {
  const now = webhooksOf(obj);
  const before = webhooksOf(old);
  if (now.length !== before.length) return false;
  return now.every((webhook, i) => deepEqual(isObj(webhook) ? webhook.matchConditions : undefined, isObj(before[i]) ? (before[i] as Obj).matchConditions : undefined));
}

export const validatingWebhookConfigurationStrategy: Strategy = {
  validate(obj) {
    return validateMatchConditionExpressions(obj);
  },
  validateUpdate(obj, old) {
    return matchConditionsUnchanged(obj, old) ? [] : validateMatchConditionExpressions(obj);
  },
};
