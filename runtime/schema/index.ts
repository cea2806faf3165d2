export * from './types.ts';
// Two compilers of one schema tree (schema-tree.ts), named for what they build: compileSchemaCode
// generates JavaScript (codegen.ts; fast to run, the built-in kinds), compileSchemaToClosures
// (compile.ts) builds closures (cheap to build: CRD schemas at run time).
export { compileSchemaCode, compileSchemaSource } from './codegen.ts';
export type { CompiledSource, ClosureRef, RootFn, ValidatorFactory } from './codegen.ts';
export { SchemaCompileError } from './compile-error.ts';
export { H as codegenHelpers } from './codegen-runtime.ts';
export { fieldErr, formatValue, goFloat } from './errors.ts';
export { STRING_FORMATS, NUMBER_FORMATS, stringFormat, numberFormat } from './formats.ts';
export * as syntax from './syntax.ts';
export { RULES, getRule } from './rules/index.ts';
export type { RuleKind, RuleCheck, CompiledRule, CelLowering, RuleEnv } from './rules/index.ts';
export { validateObjectMeta, validateObjectMetaUpdate, validateEmbeddedResource } from './metadata.ts';
