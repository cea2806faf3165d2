// Everything a CRD write is checked against: the generated CustomResourceDefinition validator
// (object rules of the spec, handed in by whoever assembles the server or the toolchain: runtime/
// never imports out/) plus the checks that need to understand the schemas: structural schema,
// defaults, CEL rule compilation and costs, selectable fields, storedVersions,
// spec.preserveUnknownFields, and the conversion webhook's caBundle on update. Errors are
// upstream-shaped field errors, deduplicated.
import { fieldErr } from '../schema/errors.ts';
import type { FieldError, Schema } from '../schema/types.ts';
import { compileSchemaRules, type RuleCompileOptions } from './cel-rules.ts';
import { validateSchema } from './structural.ts';
import { caBundleError, conversionCABundle, isConditionTrue } from './names.ts';
import { resolveFieldPath } from './field-path.ts';
import type { CustomResourceDefinition } from './types.ts';
import { recordStoredVersions, validateStoredVersions } from './versions.ts';
import { isObject } from '../json/is-object.ts';
import { isStackOverflow, TOO_DEEP } from '../schema/run.ts';
import { nestingLimit } from '../schema/too-deep.ts';

type Node = Record<string, unknown>;

/** The object rules of a CRD: what out/validators/customresourcedefinition.ts exports. */
export interface CRDObjectValidator {
  validate(crd: unknown): FieldError[];
  validateUpdate(crd: unknown, old: unknown): FieldError[];
  /** The generated schema: with it, a CRD nested beyond what the schema walks take is one error (runtime/schema/too-deep.ts). */
  data?: { root: Schema; definitions: Record<string, Schema> };
}

export interface CRDValidationOptions {
  /** The generated object validator, run before the schema checks; absent: the schema checks alone (the server's store runs it as its validator). */
  objectRules?: CRDObjectValidator;
  /** Cost options for rule compilation. */
  cost?: RuleCompileOptions;
}

/**
 * Whether a schema sets a default anywhere (outside default, enum and example values); iterative and
 * each object once: a schema may nest deeper than the stack, or (given as an object) be cyclic.
 */
function hasDefaults(schema: unknown): boolean {
  const pending: unknown[] = [schema];
  const seen = new Set<object>();
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v !== 'object' || v === null || seen.has(v)) continue;
    seen.add(v);
    if (Array.isArray(v)) for (const x of v) pending.push(x);
    else if (isObject(v)) {
      if (v.default !== undefined) return true;
      for (const [k, x] of Object.entries(v)) if (k !== 'enum' && k !== 'example' && typeof x === 'object' && x !== null) pending.push(x);
    }
  }
  return false;
}

const tooDeepChecks = new WeakMap<object, (crd: unknown) => FieldError | null>();

/** The check of a CRD nested beyond what the schema walks take, from the object rules' schema (none without it). */
function tooDeepCheck(rules: CRDObjectValidator | undefined): ((crd: unknown) => FieldError | null) | undefined {
  const data = rules?.data;
  if (!data) return undefined;
  let check = tooDeepChecks.get(data);
  if (!check) tooDeepChecks.set(data, (check = nestingLimit(data.root, data.definitions)));
  return check;
}

/** The schema-aware checks of a CRD (create or update), without the generated object rules. */
export function validateCRDSchemas(crd: CustomResourceDefinition, old?: CustomResourceDefinition, opts: CRDValidationOptions = {}): FieldError[] {
  const errs: FieldError[] = [];
  const spec = isObject(crd?.spec) ? crd.spec : undefined;
  if (!spec) return errs;
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  const preserve = spec.preserveUnknownFields === true;
  const oldPreserve = old?.spec?.preserveUnknownFields === true;
  if (preserve && !oldPreserve) {
    errs.push(fieldErr.invalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-cluster-preserve-unknown-fields to true in spec.versions[*].schema instead'));
  }
  const anyDefaults = versions.some((v) => hasDefaults(v?.schema?.openAPIV3Schema));
  if (anyDefaults && preserve) errs.push(fieldErr.invalid('spec.preserveUnknownFields', true, 'must be false in order to use defaults in the schema'));

  // the schema walks recurse: a CRD too deep for them is one error (the object rules' own, reported
  // here when they run here) and its schemas are not walked; where the rules run apart (the
  // server's store) an overflow of the walks is caught below
  const tooDeep = tooDeepCheck(opts.objectRules)?.(crd) ?? null;
  if (tooDeep) errs.push(tooDeep);
  versions.forEach((v, i) => {
    if (!isObject(v) || tooDeep) return;
    const schema = v.schema?.openAPIV3Schema;
    if (!isObject(schema)) return; // a missing schema is reported by the object rules (Required value)
    const path = `spec.versions[${i}].schema.openAPIV3Schema`;
    try {
      const schemaErrs = validateSchema(schema, path, {
        statusEnabled: isObject(v.subresources) && v.subresources.status !== undefined && v.subresources.status !== null,
        requireStructural: !preserve || anyDefaults,
      });
      errs.push(...schemaErrs);
      if (schemaErrs.length === 0) errs.push(...compileSchemaRules(schema, path, opts.cost).errors);
      if (Array.isArray(v.selectableFields) && schemaErrs.length === 0) errs.push(...validateSelectableFields(v.selectableFields, schema, `spec.versions[${i}].selectableFields`));
    } catch (e) {
      // within the nesting limit, yet deeper than this caller's stack leaves room for
      if (!isStackOverflow(e)) throw e;
      errs.push({ ...TOO_DEEP, field: path });
    }
  });

  if (old) errs.push(...validateConversionCABundleUpdate(crd, old));

  // storedVersions as the registry leaves them (storage version appended)
  const storageCount = versions.filter((v) => isObject(v) && v.storage === true).length;
  if (storageCount === 1) {
    const copy = { ...crd, status: { ...(crd.status ?? {}) } } as CustomResourceDefinition;
    recordStoredVersions(copy, old);
    errs.push(...validateStoredVersions(copy.status?.storedVersions, versions));
  }
  return errs;
}

/**
 * Upstream's allowInvalidCABundle: an invalid conversion caBundle may be written while the stored
 * CRD is not Established, or when the stored caBundle is set and already invalid.
 */
function allowInvalidCABundle(old: CustomResourceDefinition): boolean {
  if (!isConditionTrue(old, 'Established')) return true;
  const cc = conversionCABundle(old);
  if (!cc.set || !cc.caBundle) return false;
  return caBundleError(cc.caBundle) !== undefined;
}

/** A Webhook conversion's non-empty caBundle must be valid PEM on an update of an Established CRD. */
export function validateConversionCABundleUpdate(crd: CustomResourceDefinition, old: CustomResourceDefinition): FieldError[] {
  if (crd.spec?.conversion?.strategy !== 'Webhook') return [];
  const cc = conversionCABundle(crd);
  if (!cc.set || !cc.caBundle || allowInvalidCABundle(old)) return [];
  const err = caBundleError(cc.caBundle);
  return err === undefined ? [] : [fieldErr.invalid('spec.conversion.webhook.clientConfig.caBundle', cc.caBundle, err)];
}

const SELECTABLE_TYPES = new Set(['string', 'boolean', 'integer']);

/** Upstream's ValidateCustomResourceSelectableFields (the count limit is an object rule). */
export function validateSelectableFields(fields: readonly unknown[], schema: Node, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    const jp = isObject(f) && typeof f.jsonPath === 'string' ? f.jsonPath : '';
    const p = `${path}[${i}].jsonPath`;
    if (jp === '') {
      errs.push(fieldErr.required(p));
      return;
    }
    const found = resolveFieldPath(jp, schema, false);
    if ('error' in found) {
      errs.push(fieldErr.invalid(p, jp, `is an invalid path: ${found.error}`));
      return;
    }
    const segs = found.segs;
    if (segs[0] === 'metadata') errs.push(fieldErr.invalid(p, jp, 'must not point to fields in metadata'));
    if (!SELECTABLE_TYPES.has(String(found.schema.type ?? ''))) {
      errs.push(fieldErr.invalid(p, jp, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'));
    }
    const key = segs.join('.');
    if (seen.has(key)) errs.push(fieldErr.duplicate(p, jp));
    else seen.add(key);
  });
  return errs;
}

function dedupe(errs: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errs.filter((e) => {
    const k = `${e.field}: ${e.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** A CRD's object-rule errors (from any validator of the generated rules) with its schema-aware ones, deduplicated. */
export function withCRDSchemaErrors(objectErrors: FieldError[], crd: unknown, old?: unknown, opts: CRDValidationOptions = {}): FieldError[] {
  const errs = [...objectErrors];
  if (isObject(crd)) errs.push(...validateCRDSchemas(crd as unknown as CustomResourceDefinition, isObject(old) ? (old as unknown as CustomResourceDefinition) : undefined, opts));
  return dedupe(errs);
}

/** Every error of a CRD create: object rules (when given), schemas, rules, storedVersions. */
export function validateCRD(crd: unknown, opts: CRDValidationOptions = {}): FieldError[] {
  const errs = opts.objectRules?.validate(crd) ?? [];
  if (isObject(crd)) errs.push(...validateCRDSchemas(crd as unknown as CustomResourceDefinition, undefined, opts));
  return dedupe(errs);
}

/** Every error of a CRD update from `old` (object rules when given). */
export function validateCRDUpdate(crd: unknown, old: unknown, opts: CRDValidationOptions = {}): FieldError[] {
  const errs = opts.objectRules?.validateUpdate(crd, old) ?? [];
  if (isObject(crd)) errs.push(...validateCRDSchemas(crd as unknown as CustomResourceDefinition, isObject(old) ? (old as unknown as CustomResourceDefinition) : undefined, opts));
  return dedupe(errs);
}
