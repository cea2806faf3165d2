export * from './types.ts';
export { compileSchema, SchemaCompileError } from './compile.ts';
export { fieldErr, formatValue, goFloat } from './errors.ts';
export { STRING_FORMATS, NUMBER_FORMATS, stringFormat, numberFormat } from './formats.ts';
export * as syntax from './syntax.ts';
export { RULES, getRule } from './rules/index.ts';
export type { RuleKind, RuleCheck, CompiledRule, CelLowering, RuleEnv } from './rules/index.ts';
export { validateObjectMeta, validateObjectMetaUpdate, validateEmbeddedResource } from './metadata.ts';
