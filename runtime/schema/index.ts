export * from './types.ts';
// compileSchema is the code-generating compiler (codegen.ts); compile.ts, the closure compiler, is kept
// as the reference implementation that runtime/schema/codegen.test.ts checks it against.
export { compileSchemaCode as compileSchema, compileSchemaSource } from './codegen.ts';
export type { CompiledSource, ClosureRef, RootFn, ValidatorFactory } from './codegen.ts';
export { SchemaCompileError } from './compile.ts';
export { H as codegenHelpers } from './codegen-runtime.ts';
export { fieldErr, formatValue, goFloat } from './errors.ts';
export { STRING_FORMATS, NUMBER_FORMATS, stringFormat, numberFormat } from './formats.ts';
export * as syntax from './syntax.ts';
export { RULES, getRule } from './rules/index.ts';
export type { RuleKind, RuleCheck, CompiledRule, CelLowering, RuleEnv } from './rules/index.ts';
export { validateObjectMeta, validateObjectMetaUpdate, validateEmbeddedResource } from './metadata.ts';
