// The validator of each apiVersion and kind: the generated validators of the built-in kinds, and a
// custom resource validator per version of each CustomResourceDefinition given with --crds.
// Each check does what the server does on write: drop unknown fields (reported), default, validate.
// The generated validators (out/validators) are handed in by the toolchain's CLI: runtime/ never imports out/.
import { buildCustomResourceVersion, type CustomResourceVersion } from '../crd/custom-resource.ts';
import type { CustomResourceDefinition } from '../crd/types.ts';
import { validateCRD, validateCRDUpdate } from '../crd/validate-crd.ts';
import type { FieldError, ResourceContext } from '../schema/types.ts';
import { isObject } from '../json/is-object.ts';

export type Obj = Record<string, unknown>;

export interface CheckResult {
  errors: FieldError[];
  /** Paths of fields the schema does not know (`spec.colour`). */
  unknownFields: string[];
  /** A deprecation warning of the version, as the server sends it. */
  warning?: string;
}

export interface Checker {
  /** `Kind` or `Kind.group` as upstream names it in Invalid errors. */
  qualifiedKind: string;
  /** Prunes and defaults `obj` in place (a document's own copy, read once), never `old` (kept for other documents). */
  check(obj: Obj, old: Obj | undefined): CheckResult;
}

// structuredClone, not runtime/json's deepCopy: a YAML document may share (or loop) nodes through aliases.
const clone = <T>(v: T): T => structuredClone(v);

export const CRD_KEY = 'apiextensions.cluster.io/v1|CustomResourceDefinition';
export const checkerKey = (apiVersion: string, kind: string): string => `${apiVersion}|${kind}`;

/** What a generated validator module (out/validators/<kind>.ts) exports that a check uses. */
export interface GeneratedValidatorModule {
  resourceContext: ResourceContext;
  prune(obj: unknown): string[];
  applyDefaults(obj: unknown): void;
  validate(obj: unknown): FieldError[];
  validateUpdate(obj: unknown, old: unknown): FieldError[];
}

/** The generated validators of the built-in kinds, by kind (out/validators/index.ts). */
export type GeneratedValidators = Readonly<Record<string, GeneratedValidatorModule>>;

export function builtinCheckers(validators: GeneratedValidators): Map<string, Checker> {
  const map = new Map<string, Checker>();
  for (const mod of Object.values(validators)) {
    const ctx = mod.resourceContext;
    const apiVersion = ctx.group ? `${ctx.group}/${ctx.version}` : ctx.version;
    const crd = ctx.kind === 'CustomResourceDefinition';
    map.set(checkerKey(apiVersion, ctx.kind), {
      qualifiedKind: ctx.group ? `${ctx.kind}.${ctx.group}` : ctx.kind,
      check(o, old) {
        const unknownFields = mod.prune(o);
        mod.applyDefaults(o);
        let errors: FieldError[];
        if (crd) errors = old ? validateCRDUpdate(o, old, { objectRules: mod }) : validateCRD(o, { objectRules: mod });
        else if (old) {
          const oo = clone(old);
          mod.prune(oo);
          mod.applyDefaults(oo);
          errors = mod.validateUpdate(o, oo);
        } else errors = mod.validate(o);
        return { errors, unknownFields };
      },
    });
  }
  return map;
}

export function customChecker(v: CustomResourceVersion): Checker {
  return {
    qualifiedKind: `${v.kind}.${v.group}`,
    check(o, old) {
      let oo: Obj | undefined;
      if (old) {
        oo = clone(old);
        v.prune(oo);
        v.applyDefaults(oo);
      }
      const r = v.write(o, oo);
      return { errors: r.errors, unknownFields: r.pruned, ...(v.warning ? { warning: v.warning } : {}) };
    },
  };
}

/** The checkers of every version of a valid CRD; a version that cannot be built is returned as an error. */
export function crdCheckers(crd: CustomResourceDefinition): Array<{ key: string; checker: Checker } | { version: number; error: string }> {
  return (crd.spec.versions ?? []).map((v, i) => {
    try {
      const served = buildCustomResourceVersion(crd, v.name);
      return { key: checkerKey(served.apiVersion, served.kind), checker: customChecker(served) };
    } catch (e) {
      return { version: i, error: (e as Error).message };
    }
  });
}
