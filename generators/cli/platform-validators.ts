// The generated validators of the platform's own kinds (out/validators), handed by the CLI to the
// runtime code that checks objects offline (runtime/validate, runtime/crd): runtime/ never imports out/.
import * as validators from '../../out/validators/index.ts';
import type { CRDObjectValidator } from '../../runtime/crd/validate-crd.ts';
import type { GeneratedValidators } from '../../runtime/validate/checkers.ts';

export const platformValidators: GeneratedValidators = validators;

/** The object rules of a CustomResourceDefinition, run on every CRD the toolchain reads. */
export const crdObjectRules: CRDObjectValidator = validators.CustomResourceDefinition;
