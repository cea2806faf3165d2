// PersistentVolumeClaim (document 1 section 2.4, api-conventions 9.2; upstream facts from
// pkg/registry/core/persistentvolumeclaim/strategy.go, pkg/api/persistentvolumeclaim/util.go and
// the claim update validation in pkg/apis/core/validation).
//
// Data sources, on create and on update of the main resource, before defaulting and validation:
//  - disabled fields: dataSourceRef is dropped when AnyVolumeDataSource is off, and when its
//    namespace is set while CrossNamespaceVolumeDataSource is off, unless the stored claim already
//    has a dataSourceRef;
//  - backwards compatibility: unless the stored claim already has a data source (either field) or
//    the request sets dataSourceRef, a dataSource other than a core-group PersistentVolumeClaim or a
//    VolumeSnapshot of snapshot.storage.cluster.io is dropped without error;
//  - with AnyVolumeDataSource on, rule 1: a dataSource alone is copied to dataSourceRef (kind,
//    name, apiGroup), a dataSourceRef alone without namespace is copied to dataSource; rule 2: a
//    dataSourceRef with a namespace is not copied. On update the stored claim is normalized the
//    same way, so claims stored before normalization still pass the immutability rule.
//  Rule 3 (equality when both are set) is a validator rule of the shape.
//
// VolumeAttributesClass off (upstream DropDisabledFields / DropDisabledFieldsFromStatus and the
// gate check of ValidatePersistentVolumeClaimUpdate): spec.volumeAttributesClassName is dropped on
// create, and on update unless the stored claim has one; on /status,
// status.currentVolumeAttributesClassName and status.modifyVolumeStatus are dropped unless the
// stored claim has them; an update that still changes volumeAttributesClassName is Forbidden.
//
// /status (upstream ValidatePersistentVolumeClaimStatusUpdate), while RecoverVolumeExpansionFailure
// is on (or the stored claim uses its fields): a reserved key (unprefixed, or holding cluster.io/)
// of allocatedResourceStatuses or allocatedResources other than storage is not supported, and an
// allocatedResourceStatuses value outside the documented vocabulary is not supported; both are
// reported at upstream's paths (status.allocatedResourceStatus, singular, with the key as value).
// Key syntax is the schema's keySyntax rule.
//
// Resize, on update: spec.resources.requests.storage may decrease only with
// RecoverVolumeExpansionFailure (also treated as on when the stored claim has
// status.allocatedResources or status.allocatedResourceStatuses), and then must stay above the
// stored status.capacity.storage. Quantities compare semantically (1Gi == 1024Mi); a missing value
// counts as zero.
//
// The strategy sees feature gates through createPersistentVolumeClaimStrategy; the registered
// instance uses the documented defaults (out/validators/feature-gates.ts).

import { compareQuantity, tryParseQuantity, type Quantity } from '../../quantity/quantity.ts';
import { fieldErr } from '../../schema/errors.ts';
import { isQualifiedName } from '../../schema/syntax.ts';
import type { FieldError } from '../../schema/types.ts';
import { deepEqual, isObj, type Obj } from '../../api/object.ts';
import type { Strategy } from '../strategy.ts';

const SNAPSHOT_GROUP = 'snapshot.storage.cluster.io';
const STORAGE_PATH = 'spec.resources.requests.storage';

/**
 * The resize states of document 1 section 3.3, sorted as upstream lists them (sets.List) in the
 * error. Current upstream names the failures ControllerResizeInfeasible/NodeResizeInfeasible;
 * the documents keep ...Failed, and the documents are the contract.
 */
export const RESIZE_STATUSES = ['ControllerResizeFailed', 'ControllerResizeInProgress', 'NodeResizeFailed', 'NodeResizeInProgress', 'NodeResizePending'] as const;
const RESIZE_STATUS_SET: ReadonlySet<string> = new Set(RESIZE_STATUSES);

export interface PvcGates {
  AnyVolumeDataSource: boolean;
  CrossNamespaceVolumeDataSource: boolean;
  RecoverVolumeExpansionFailure: boolean;
  VolumeAttributesClass: boolean;
}

function gatesFrom(g: Record<string, boolean>): PvcGates {
  return {
    AnyVolumeDataSource: !!g.AnyVolumeDataSource,
    CrossNamespaceVolumeDataSource: !!g.CrossNamespaceVolumeDataSource,
    RecoverVolumeExpansionFailure: !!g.RecoverVolumeExpansionFailure,
    VolumeAttributesClass: !!g.VolumeAttributesClass,
  };
}

/** A pointer field is "set" (non-nil upstream) when present and not null. */
function isSet(spec: Obj | undefined, key: string): boolean {
  return !!spec && spec[key] !== undefined && spec[key] !== null;
}

function specOf(obj: Obj | undefined): Obj | undefined {
  return obj && isObj(obj.spec) ? obj.spec : undefined;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function refNamespace(spec: Obj): string {
  return isObj(spec.dataSourceRef) ? str(spec.dataSourceRef.namespace) : '';
}

/** upstream DropDisabledFields, the data source part. */
export function dropDisabledDataSourceFields(spec: Obj, oldSpec: Obj | undefined, gates: PvcGates): void {
  const refInUse = isSet(oldSpec, 'dataSourceRef');
  if (!gates.AnyVolumeDataSource && !refInUse) delete spec.dataSourceRef;
  if (!gates.CrossNamespaceVolumeDataSource && isSet(spec, 'dataSourceRef') && refNamespace(spec) !== '' && !refInUse) {
    delete spec.dataSourceRef;
  }
}

function isPvcOrSnapshot(ds: unknown): boolean {
  if (!isObj(ds)) return false;
  const group = str(ds.apiGroup);
  return (ds.kind === 'PersistentVolumeClaim' && group === '') || (ds.kind === 'VolumeSnapshot' && group === SNAPSHOT_GROUP);
}

/** upstream EnforceDataSourceBackwardsCompatibility: disallowed dataSource values are dropped silently. */
export function enforceDataSourceBackwardsCompatibility(spec: Obj, oldSpec: Obj | undefined): void {
  if (isSet(oldSpec, 'dataSource') || isSet(oldSpec, 'dataSourceRef')) return;
  if (isSet(spec, 'dataSourceRef')) return;
  if (isSet(spec, 'dataSource') && !isPvcOrSnapshot(spec.dataSource)) delete spec.dataSource;
}

/** kind, name and (when set) apiGroup of a reference. */
function copyRef(from: Obj): Obj {
  const out: Obj = {};
  if (from.apiGroup !== undefined && from.apiGroup !== null) out.apiGroup = from.apiGroup;
  if (from.kind !== undefined) out.kind = from.kind;
  if (from.name !== undefined) out.name = from.name;
  return out;
}

/** upstream NormalizeDataSources: data source rules 1 and 2 (AnyVolumeDataSource on). */
export function normalizeDataSources(spec: Obj, gates: PvcGates): void {
  if (!gates.AnyVolumeDataSource) return;
  const hasDs = isSet(spec, 'dataSource');
  const hasRef = isSet(spec, 'dataSourceRef');
  if (hasDs && !hasRef) {
    if (isObj(spec.dataSource)) spec.dataSourceRef = copyRef(spec.dataSource);
  } else if (hasRef && !hasDs) {
    if (isObj(spec.dataSourceRef) && refNamespace(spec) === '') spec.dataSource = copyRef(spec.dataSourceRef);
  }
}

/** Data source handling on create (`oldSpec` undefined) or update. */
export function prepareDataSources(spec: Obj, oldSpec: Obj | undefined, gates: PvcGates): void {
  dropDisabledDataSourceFields(spec, oldSpec, gates);
  enforceDataSourceBackwardsCompatibility(spec, oldSpec);
  normalizeDataSources(spec, gates);
}

/** upstream DropDisabledFields, the volumeAttributesClassName part (`oldSpec` undefined on create). */
export function dropDisabledVolumeAttributesClass(spec: Obj, oldSpec: Obj | undefined, gates: PvcGates): void {
  if (!gates.VolumeAttributesClass && !isSet(oldSpec, 'volumeAttributesClassName')) delete spec.volumeAttributesClassName;
}

/** upstream DropDisabledFieldsFromStatus (a /status write). */
export function dropDisabledStatusFields(status: Obj, oldStatus: Obj | undefined, gates: PvcGates): void {
  if (gates.VolumeAttributesClass) return;
  if (!isSet(oldStatus, 'currentVolumeAttributesClassName')) delete status.currentVolumeAttributesClassName;
  if (!isSet(oldStatus, 'modifyVolumeStatus')) delete status.modifyVolumeStatus;
}

/** The gate part of upstream ValidatePersistentVolumeClaimUpdate for volumeAttributesClassName. */
export function validateVolumeAttributesClassUpdate(obj: Obj, old: Obj, gates: PvcGates): FieldError[] {
  if (gates.VolumeAttributesClass) return [];
  // A pointer compare: absent and null are both nil, "" is a value.
  const name = (o: Obj): unknown => (isSet(specOf(o), 'volumeAttributesClassName') ? specOf(o)?.volumeAttributesClassName : undefined);
  if (deepEqual(name(obj), name(old))) return [];
  return [fieldErr.forbidden('spec.volumeAttributesClassName', 'update is forbidden when the VolumeAttributesClass feature gate is disabled')];
}

/** upstream helper.IsNativeResource with the cluster.io prefix: unprefixed, or holding cluster.io/. */
function isNativeResource(key: string): boolean {
  return !key.includes('/') || key.includes('cluster.io/');
}

/** The map at status.<field>, when it is one. */
function statusMap(obj: Obj, field: string): Obj | undefined {
  const st = isObj(obj.status) ? obj.status : undefined;
  return st && isObj(st[field]) ? st[field] : undefined;
}

/** The resource-key and resize-state part of upstream ValidatePersistentVolumeClaimStatusUpdate. */
export function validateStatusUpdate(obj: Obj, old: Obj, gates: PvcGates): FieldError[] {
  const recover = gates.RecoverVolumeExpansionFailure || !!statusMap(old, 'allocatedResources') || !!statusMap(old, 'allocatedResourceStatuses');
  if (!recover) return [];
  const errs: FieldError[] = [];
  // A key that is not a qualified name gets the schema's keySyntax error; upstream then stops.
  const reservedKey = (key: string, path: string): void => {
    if (isQualifiedName(key).length === 0 && isNativeResource(key) && key !== 'storage') errs.push(fieldErr.notSupported(path, key, ['storage']));
  };
  const resizePath = 'status.allocatedResourceStatus';
  for (const [key, value] of Object.entries(statusMap(obj, 'allocatedResourceStatuses') ?? {})) {
    reservedKey(key, resizePath);
    // Upstream reports the key, not the value, as the unsupported value.
    if (typeof value !== 'string' || !RESIZE_STATUS_SET.has(value)) errs.push(fieldErr.notSupported(resizePath, key, [...RESIZE_STATUSES]));
  }
  for (const key of Object.keys(statusMap(obj, 'allocatedResources') ?? {})) reservedKey(key, 'status.allocatedResources');
  return errs;
}

/** The quantity at obj.<path...>; zero when absent, null when not a parseable quantity. */
function quantityAt(obj: Obj, path: string[]): Quantity | null {
  let cur: unknown = obj;
  for (const p of path) {
    if (!isObj(cur)) return { nanos: 0n, format: 'BinarySI' };
    cur = cur[p];
  }
  if (cur === undefined || cur === null) return { nanos: 0n, format: 'BinarySI' };
  if (typeof cur === 'number' && Number.isFinite(cur)) return tryParseQuantity(String(cur));
  return typeof cur === 'string' ? tryParseQuantity(cur) : null;
}

/** The resize rule (upstream ValidatePersistentVolumeClaimUpdate, storage size part). */
export function validateResize(obj: Obj, old: Obj, gates: PvcGates): FieldError[] {
  const newSize = quantityAt(obj, ['spec', 'resources', 'requests', 'storage']);
  const oldSize = quantityAt(old, ['spec', 'resources', 'requests', 'storage']);
  // Malformed quantities are reported by the schema validator.
  if (!newSize || !oldSize || compareQuantity(newSize, oldSize) >= 0) return [];
  const oldStatus = isObj(old.status) ? old.status : undefined;
  const recover = gates.RecoverVolumeExpansionFailure || isSet(oldStatus, 'allocatedResources') || isSet(oldStatus, 'allocatedResourceStatuses');
  if (!recover) return [fieldErr.forbidden(STORAGE_PATH, 'field can not be less than previous value')];
  const capacity = quantityAt(old, ['status', 'capacity', 'storage']);
  if (capacity && compareQuantity(newSize, capacity) <= 0) {
    return [fieldErr.forbidden(STORAGE_PATH, 'field can not be less than status.capacity')];
  }
  return [];
}

/** The PVC strategy for the given feature gates (missing gates count as off). */
export function createPersistentVolumeClaimStrategy(featureGates: Record<string, boolean>): Strategy {
  const gates = gatesFrom(featureGates);
  // validateUpdate serves both endpoints; the store hands the object prepareForStatusUpdate saw
  // to validateUpdate, which so tells a /status write (upstream's separate status strategy).
  const statusWrites = new WeakSet<Obj>();
  return {
    prepareForCreate(obj) {
      const spec = specOf(obj);
      if (spec) {
        dropDisabledVolumeAttributesClass(spec, undefined, gates);
        prepareDataSources(spec, undefined, gates);
      }
    },
    prepareForUpdate(obj, old) {
      const spec = specOf(obj);
      const oldSpec = specOf(old);
      if (spec) {
        dropDisabledVolumeAttributesClass(spec, oldSpec, gates);
        prepareDataSources(spec, oldSpec, gates);
      }
      // The stored claim too (upstream normalizes the old object), so a claim stored without the
      // copy compares equal under the immutability rule. `old` is a fresh decode of storage.
      if (oldSpec) normalizeDataSources(oldSpec, gates);
    },
    prepareForStatusUpdate(obj, old) {
      statusWrites.add(obj);
      if (isObj(obj.status)) dropDisabledStatusFields(obj.status, isObj(old.status) ? old.status : undefined, gates);
    },
    validateUpdate(obj, old) {
      if (statusWrites.has(obj)) return validateStatusUpdate(obj, old, gates);
      return [...validateResize(obj, old, gates), ...validateVolumeAttributesClassUpdate(obj, old, gates)];
    },
  };
}

/** The registered instance: documented gate defaults. */
