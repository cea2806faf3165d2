export * from './types.ts';
// compileSchema is the code-generating builder (codegen.ts, fast to run); compile.ts builds closures from
// the same schema tree (schema-tree.ts), cheap to build, for CRD schemas.
export { compileSchemaCode as compileSchema, compileSchemaSource } from './codegen.ts';
export type { CompiledSource, ClosureRef, RootFn, ValidatorFactory } from './codegen.ts';
export { SchemaCompileError } from './compile-error.ts';
export { H as codegenHelpers } from './codegen-runtime.ts';
export { fieldErr, formatValue, goFloat } from './errors.ts';
export { STRING_FORMATS, NUMBER_FORMATS, stringFormat, numberFormat } from './formats.ts';
export * as syntax from './syntax.ts';
export { RULES, getRule } from './rules/index.ts';
export type { RuleKind, RuleCheck, CompiledRule, CelLowering, RuleEnv } from './rules/index.ts';
export { validateObjectMeta, validateObjectMetaUpdate, validateEmbeddedResource } from './metadata.ts';
