// CustomResourceDefinitions that serve live custom resources: the pure, server-independent parts.
export * from './types.ts';
export { validateSchema, validateStructural, validateDefaults, type SchemaCheckOptions } from './structural.ts';
export { compileSchemaRules, costErrorMessage, type RuleCompileOptions, type RuleCompileResult, type RuleCost } from './cel-rules.ts';
export { crdRuleEngine, markResourceRoot } from './cel-engine.ts';
export {
  compareKubeAwareVersionStrings, compareVersions, sortVersions, parseKubeVersion, servedVersions, preferredVersion,
  storageVersion, findVersion, withStorageVersionRecorded, recordStoredVersions, validateStoredVersions,
  validateStoredVersionsOnWrite, deprecationWarning, defaultDeprecationWarning,
} from './versions.ts';
export {
  calculateNames, defaultNames, establishedCondition, findCondition, isConditionTrue, reconcileNames, setCondition,
  type BuiltinResourceNames, type NamingContext, type NamesResult,
} from './names.ts';
export {
  buildCustomResourceVersion, CustomResourceCache, CustomResourceError, SCALE_API_VERSION,
  type CustomResourceVersion, type ScaleSubresource, type ScaleValues, type SelectableField, type WriteResult,
} from './custom-resource.ts';
export { validateCRD, validateCRDUpdate, validateCRDSchemas, validateSelectableFields, type CRDObjectValidator, type CRDValidationOptions } from './validate-crd.ts';
export { parseSimplePath, findSchemaAt, readPath, writePath, type PathSegment } from './paths.ts';
