// The shape of one declarative rule kind (x-cluster-rules). One file per kind implements it.
import type { RuleSpec, Schema, ValidationRule } from '../types.ts';
import type { ValidationContext } from '../context.ts';

export interface RuleEnv {
  /** Feature gate values (a rule with `unlessFeatureGate` reads them). */
  featureGates: Record<string, boolean>;
  /** Resolves `$ref` (and nothing else) to the named definition. */
  resolve(s: Schema): Schema;
}

/**
 * A compiled check. `v` is the value at the node (undefined when absent), `old` the old value at the
 * same path (undefined on create or when absent). The current path is `ctx.path()`.
 */
export type RuleCheck = (v: unknown, old: unknown, ctx: ValidationContext) => void;

export interface CompiledRule {
  check: RuleCheck;
  /** Also run when the field is absent (its parent object calls it with `v` undefined). */
  whenAbsent?: boolean;
  /** Run only in validateUpdate (old may still be undefined there). */
  updateOnly?: boolean;
}

/** A rule's lowering to CEL: the rule, or null with the reason CEL cannot express it. */
export type CelLowering = { rule: ValidationRule } | { rule: null; reason: string };

export interface RuleKind {
  readonly kind: string;
  /**
   * The rule checks its node's `enum` values and the property's absence itself (with upstream's
   * wording), so the schema tree checks neither; the `enum` and `required` stay in the documents.
   */
  readonly checksEnumAndAbsence?: boolean;
  /** Null when the parameters are well formed for this node, else what is wrong. */
  checkParams(params: RuleSpec, node: Schema, env: RuleEnv): string | null;
  /** The validator's check; null when the rule never checks anything (note). */
  compile(params: RuleSpec, node: Schema, env: RuleEnv): CompiledRule | null;
  /** Lowering to an x-kubernetes-validations-style rule for CRD bodies, with the same message. */
  toCel(params: RuleSpec, node?: Schema, fieldName?: string): CelLowering;
  /** One sentence for the OpenAPI description. */
  describe(params: RuleSpec): string;
}
