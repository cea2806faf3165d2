// The CEL layer's engine API in one import: what runtime/cel and its importers (runtime/schema,
// runtime/admission) use of the engine and our additions. Each part lives in its own file (README.md).

export {
  celError,
  CelObject,
  Duration,
  listKindOf,
  markList,
  MAX_INT,
  MAX_UINT,
  MIN_INT,
  Optional,
  UnsignedInt,
  type CelTypeDecl,
  type ListKind,
  type ObjectTypeDef,
} from './values.ts';
export {
  checkTimeRange,
  compareTime,
  durationFromNanos,
  durationNanos,
  parseRfc3339,
  subMillisecondNanos,
  timestampFromNanos,
  timestampNanos,
} from './time.ts';
export { CelCostLimitError, chargeCost, traversalCost } from './runtime-cost.ts';
export { celEquals, listConcat } from './equality.ts';
export {
  identName,
  installExtension,
  installLibraries,
  nodeSource,
  NOT_LITERAL,
  type CallOverride,
  type CelHandler,
  type CelLibrary,
  type CelRegistrar,
  type MacroChecker,
  type MacroContext,
  type MacroDefinition,
  type MacroEvaluator,
  type MacroNode,
  type MacroType,
} from './registrar.ts';
export { CelEnvironment, CompiledExpression, type EnvSpec } from './environment.ts';
export { type EnumTypeDef, type FieldType, type MessageFieldDef, type MessageTypeDef, type ProtoTypes, type ScalarKind } from './messages.ts';
export type { AstView } from './ast.ts';
export { decodeBytesLiteral, fieldPresent } from './check-fixups.ts';
export type { ASTNode } from '@marcbachmann/cel-js';
