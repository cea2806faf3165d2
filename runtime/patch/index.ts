// runtime/patch: strategic merge patch and server-side apply with managed fields. Pure functions.
export { applyStrategicMergePatch } from './strategic-merge.ts';
export { apply, type ApplyOptions, type ApplyResult } from './apply.ts';
export {
  updateManagedFields,
  decodeManagedFields,
  encodeManagedFields,
  managerFromUserAgent,
  defaultFieldManager,
  validateFieldManager,
  validateManagedFields,
  managerIdentifier,
  describeManager,
  FIELD_MANAGER_MAX_LENGTH,
  type UpdateOptions,
  type ManagedFieldsEntry,
  type ManagerState,
  type Managed,
} from './managed-fields.ts';
export { FieldSet, pathToString, serializePathElement, deserializePathElement, type FieldPath, type PathElement } from './fieldpath.ts';
export { toFieldSet, compare, merge, removeItems, ensureNamedFieldsAreMembers, TypedValueError, type Comparison } from './typed.ts';
export { StrategicMergePatchError, ApplyConflictError, ManagedFieldsError, type ApplyConflict, type StrategicMergePatchErrorKind } from './errors.ts';
