// The contract between the schema compiler, the CEL layer and everything that uses them.
// Kept free of logic so that generators, runtime and tests can all import it.

/** An OpenAPI 3.0 / JSONSchemaProps schema node with the x-cluster-* extensions. */
export interface Schema {
  $ref?: string;
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  title?: string;
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  deprecated?: boolean;
  required?: string[];
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  not?: Schema;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  example?: unknown;
  'x-cluster-list-type'?: 'atomic' | 'set' | 'map';
  'x-cluster-list-map-keys'?: string[];
  'x-cluster-map-type'?: 'granular' | 'atomic';
  'x-cluster-patch-strategy'?: string;
  'x-cluster-patch-merge-key'?: string;
  'x-cluster-int-or-string'?: boolean;
  'x-cluster-preserve-unknown-fields'?: boolean;
  'x-cluster-embedded-resource'?: boolean;
  'x-cluster-validations'?: ValidationRule[];
  'x-cluster-rules'?: RuleSpec[];
  'x-cluster-immutable'?: boolean;
  'x-cluster-feature-gate'?: string;
  'x-cluster-deprecated'?: string;
  'x-cluster-source'?: string;
  'x-cluster-vendor-label'?: string;
  'x-cluster-behavior-default'?: unknown;
  'x-cluster-write-only'?: boolean;
  [extension: `x-${string}`]: unknown;
}

/** One CEL rule of x-cluster-validations (document 2, ValidationRule). */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** One declarative rule of x-cluster-rules (spec/README.md lists the kinds). */
export interface RuleSpec {
  rule: string;
  message?: string;
  source?: string;
  [parameter: string]: unknown;
}

/** Upstream's field.ErrorType values, as they appear in Status causes. */
export type FieldErrorReason =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueTypeInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueDuplicate'
  | 'FieldValueNotFound'
  | 'InternalError';

/**
 * One field error, shaped like an upstream StatusCause:
 * field `spec.accessModes[0]`, reason `FieldValueNotSupported`,
 * message `Unsupported value: "x": supported values: "a", "b"`.
 */
export interface FieldError {
  field: string;
  reason: FieldErrorReason;
  message: string;
}

/** Names of the resource whose root object a schema describes (metadata rules depend on them). */
export interface ResourceContext {
  kind: string;
  group: string;
  version: string;
  namespaced: boolean;
  nameSyntax: 'dns1123Subdomain' | 'dns1123Label' | 'pathSegment';
}

export interface CompileOptions {
  /** Named shapes, referenced as `#/components/schemas/<Name>`. */
  definitions?: Record<string, Schema>;
  /** Set when the root schema is a resource object: metadata is validated. */
  resource?: ResourceContext;
  /** Feature gate values; a rule or field gated off behaves as upstream with the gate off. */
  featureGates?: Record<string, boolean>;
  /** Evaluates x-cluster-validations; without it a schema with CEL rules fails to compile. */
  cel?: CelRuleEngine;
  /**
   * The runtime cost budget of all CEL rules of one validation (upstream's RuntimeCELCostBudget for
   * custom resources); default none, as for the built-in kinds' own validation.
   */
  celCostBudget?: number;
  /**
   * What a failed CEL rule shows as its value: `type` (the schema type, as upstream reports CRD rules)
   * or `value` (the value itself, as upstream's hand-written validation of built-in types does).
   */
  celErrorValue?: 'type' | 'value';
  /**
   * A CEL rule that does not compile: `throw` a SchemaCompileError (default; a CRD write is refused so),
   * or `report` it as a field error on every validation, as upstream serves a stored CRD whose rule no
   * longer compiles (a stricter engine after an upgrade): `rule compile error: ...`.
   */
  celCompileErrors?: 'throw' | 'report';
}

export interface CompiledValidator {
  /** Every error of the object as a create would see it. */
  validate(obj: unknown): FieldError[];
  /** Every error of the object as an update from `old` would see it (immutability, transition rules). */
  validateUpdate(obj: unknown, old: unknown): FieldError[];
  /** Fills schema defaults in place (upstream defaulting). */
  applyDefaults(obj: unknown): void;
  /** Removes fields the schema does not know, in place; returns their paths (`spec.foo`). */
  prune(obj: unknown): string[];
}

/** The CEL layer as the schema compiler sees it (implemented in runtime/cel). */
export interface CelRuleEngine {
  /** Compiles one rule against the schema node that carries it; throws CelCompileError. */
  compileRule(rule: ValidationRule, scope: Schema, definitions: Record<string, Schema>): CompiledCelRule;
}

export interface CompiledCelRule {
  /** The rule reads oldSelf: a transition rule, run only on update unless optionalOldSelf. */
  readonly isTransitionRule: boolean;
  /** Runs the rule; `oldSelf` is undefined when there is no old value; `spent`, when given, receives its cost. */
  evaluate(self: unknown, oldSelf: unknown, spent?: CelRuleCost): CelRuleResult;
}

export type CelRuleResult =
  | { ok: true }
  | { ok: false; message: string; reason: FieldErrorReason; fieldPath?: string }
  | { ok: false; error: string };

/** What one evaluation cost, charged to a per-object budget (CRDs, as upstream); filled by `evaluate`. */
export interface CelRuleCost {
  /** The rule's actual cost (cel-go's ActualCost), beyond the per-call limit when that ran out. */
  cost: number;
  /** The messageExpression's actual cost, when it was evaluated. */
  messageCost?: number;
  /** The rule ran out of the per-call limit (upstream then runs no further rules). */
  perCallLimitExceeded?: boolean;
}

export class CelCompileError extends Error {
  constructor(
    message: string,
    readonly position?: { line: number; column: number },
  ) {
    super(message);
    this.name = 'CelCompileError';
  }
}
