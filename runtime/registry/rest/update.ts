// The pure steps before an update is admitted and stored (upstream's rest.BeforeUpdate): type,
// name and namespace checks, unknown fields, the resourceVersion precondition, server-owned fields
// from the stored object, what the endpoint may change (status or everything else), the strategy's
// preparation, defaults, generation, validation against the old object, and managedFields.

import { deepClone, deepEqual, meta, metaOf, type Obj } from '../../api/object.ts';
import type { Subresource } from '../../api/resource-descriptor.ts';
import { ApiError } from '../../errors/api-error.ts';
import { fieldErr } from '../../schema/errors.ts';
import { dropEmptyOmitted } from '../omit-empty.ts';
import type { FieldValidation } from '../store-types.ts';
import type { ResourceContext } from './context.ts';
import { trackManagedFields } from './managed-fields.ts';
import { checkNamespace, checkTypeMeta } from './type-meta.ts';
import { pruneUnknownFields } from './unknown-fields.ts';

export interface UpdateStepOptions {
  fieldValidation?: FieldValidation;
  fieldManager?: string;
  subresource?: Subresource;
  /** managedFields were set by server-side apply: keep them. */
  setsManagedFields?: boolean;
  bodyBytes?: number;
}

export interface PreparedUpdate {
  /** The object to admit and store. */
  obj: Obj;
  warnings: string[];
  /** The object is being deleted and its last finalizer went: it is removed instead of written. */
  remove: boolean;
}

/** Parses a resourceVersion (400 as upstream's strconv message when it is not a number). */
export function parseResourceVersion(rv: string | undefined): number | undefined {
  if (rv === undefined || rv === '') return undefined;
  if (!/^\d+$/.test(rv) || !Number.isSafeInteger(Number(rv))) {
    throw ApiError.badRequest(`invalid resource version: strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`);
  }
  return Number(rv);
}

export function beforeUpdate(
  ctx: ResourceContext,
  body: Obj,
  name: string,
  namespace: string | undefined,
  current: { obj: Obj; rev: number },
  opts: UpdateStepOptions = {},
): PreparedUpdate {
  const warnings: string[] = [];
  const { descriptor: d, hasStatus } = ctx;
  checkTypeMeta(ctx, body);
  const m = meta(body);
  if (m.name !== undefined && m.name !== '' && m.name !== name) {
    throw ApiError.badRequest(`the name of the object (${m.name}) does not match the name on the URL (${name})`);
  }
  checkNamespace(ctx, body, namespace);
  m.name = name;
  pruneUnknownFields(ctx, body, opts.fieldValidation ?? 'Warn', warnings);

  const old = current.obj;
  const oldMeta = metaOf(old);
  const bodyRv = m.resourceVersion;
  if (!bodyRv) {
    if (d.updateRequiresResourceVersion) {
      throw ApiError.invalid({ group: d.group, kind: d.plural }, name, [fieldErr.invalid('metadata.resourceVersion', 0, 'must be specified for an update')]);
    }
  } else if (parseResourceVersion(bodyRv) !== current.rev) {
    throw ApiError.staleConflict({ group: d.group, plural: d.plural }, name);
  }

  // Server-owned fields: the stored values win.
  m.resourceVersion = String(current.rev);
  if (!m.uid) m.uid = oldMeta.uid;
  m.creationTimestamp = oldMeta.creationTimestamp;
  if (oldMeta.deletionTimestamp) m.deletionTimestamp = oldMeta.deletionTimestamp;
  else delete m.deletionTimestamp;
  if (oldMeta.deletionGracePeriodSeconds !== undefined) m.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
  else delete m.deletionGracePeriodSeconds;
  if (oldMeta.generation !== undefined) m.generation = oldMeta.generation;
  else delete m.generation;
  delete m.selfLink;
  if (!ctx.shapes) {
    if (oldMeta.managedFields !== undefined) m.managedFields = oldMeta.managedFields;
    else delete m.managedFields;
  }

  if (opts.subresource === 'status') {
    // Only status is taken; everything outside metadata and status comes from storage.
    for (const k of Object.keys(body)) if (k !== 'metadata' && k !== 'status' && k !== 'kind' && k !== 'apiVersion') delete body[k];
    for (const [k, v] of Object.entries(old)) if (k !== 'metadata' && k !== 'status') body[k] = deepClone(v);
    ctx.strategy.prepareForStatusUpdate?.(body, old);
  } else {
    // the main endpoint and /finalize keep the stored status
    if (hasStatus) {
      if (old.status !== undefined) body.status = deepClone(old.status);
      else delete body.status;
    }
    // upstream's finalize strategy takes the body but its status, without the main endpoint's preparation
    if (opts.subresource === 'finalize') ctx.strategy.prepareForFinalizeUpdate?.(body, old);
    else ctx.strategy.prepareForUpdate?.(body, old);
  }
  ctx.validator.applyDefaults(body);
  // Before the generation and immutability comparisons with the stored object, which never holds them:
  // upstream compares with apiequality.Semantic.DeepEqual, for which nil and empty maps and lists are equal.
  if (ctx.shapes) dropEmptyOmitted(body, d.shape ?? d.kind, ctx.shapes, ctx.converts);

  if (d.generation && opts.subresource !== 'status' && specChanged(body, old, hasStatus)) {
    m.generation = (oldMeta.generation ?? 0) + 1;
  }

  // before validation and managedFields, the costly steps (not when the object may be removed instead)
  if (!oldMeta.deletionTimestamp) ctx.refuseOversized?.(body, opts.bodyBytes);
  const errs = [...ctx.validator.validateUpdate(body, old), ...(ctx.strategy.validateUpdate?.(body, old) ?? [])];
  if (errs.length) throw ApiError.invalid({ group: d.group, kind: d.kind }, name, errs);
  const obj = opts.setsManagedFields ? body : trackManagedFields(ctx, old, body, opts.fieldManager ?? '', opts.subresource);
  const fin = metaOf(obj).finalizers;
  const remove = !!oldMeta.deletionTimestamp && (!fin || fin.length === 0) && (ctx.strategy.mayDeleteDuringUpdate?.(obj) ?? true);
  return { obj, warnings, remove };
}

/** True when anything outside metadata (and status, with a status subresource) differs. */
function specChanged(a: Obj, b: Obj, ignoreStatus: boolean): boolean {
  const pick = (o: Obj): Obj => {
    const c: Obj = {};
    for (const [k, v] of Object.entries(o)) if (k !== 'metadata' && k !== 'kind' && k !== 'apiVersion' && !(ignoreStatus && k === 'status')) c[k] = v;
    return c;
  };
  return !deepEqual(pick(a), pick(b));
}
