// The pure steps before a create is admitted and stored (upstream's rest.BeforeCreate): type and
// namespace checks, unknown fields, server-owned metadata, generateName, the strategy's
// preparation, defaults, validation, and managedFields.

import { generateName, isObj, meta, nowTimestamp, type Obj } from '../../api/object.ts';
import { ApiError } from '../../errors/api-error.ts';
import { randomUUID } from 'node:crypto';
import { dropEmptyOmitted } from '../omit-empty.ts';
import type { FieldValidation } from '../store-types.ts';
import type { ResourceContext } from './context.ts';
import { trackManagedFields } from './managed-fields.ts';
import { checkNamespace, checkTypeMeta } from './type-meta.ts';
import { pruneUnknownFields } from './unknown-fields.ts';

export interface CreateStepOptions {
  fieldValidation?: FieldValidation;
  fieldManager?: string;
  /** managedFields were set by server-side apply: keep them. */
  setsManagedFields?: boolean;
  bodyBytes?: number;
}

export interface PreparedCreate {
  /** The object to admit and store. */
  obj: Obj;
  warnings: string[];
  /** The name as the request gave it ('' with generateName). */
  requestedName: string;
  /** The name was generated: on a clash the store tries another. */
  generated: boolean;
}

export function beforeCreate(ctx: ResourceContext, body: Obj, namespace: string | undefined, opts: CreateStepOptions = {}): PreparedCreate {
  const warnings: string[] = [];
  checkTypeMeta(ctx, body);
  const m = meta(body);
  checkNamespace(ctx, body, namespace);
  pruneUnknownFields(ctx, body, opts.fieldValidation ?? 'Warn', warnings);
  if (m.resourceVersion) throw ApiError.internal(new Error('resourceVersion should not be set on objects to be created'));
  // Server-owned metadata.
  m.uid = randomUUID();
  m.creationTimestamp = nowTimestamp();
  delete m.deletionTimestamp;
  delete m.deletionGracePeriodSeconds;
  delete m.selfLink;
  if (!ctx.shapes) delete m.managedFields;
  if (ctx.descriptor.generation) m.generation = 1;
  // Status is discarded on create; an empty one lets defaulting fill it (PV/PVC phase Pending).
  if (ctx.hasStatus) body.status = {};
  const requestedName = m.name ?? '';
  const generated = !m.name && !!m.generateName;
  if (generated) m.name = generateName(m.generateName as string);
  ctx.strategy.prepareForCreate?.(body);
  ctx.validator.applyDefaults(body);
  if (ctx.hasStatus && isObj(body.status) && Object.keys(body.status).length === 0) delete body.status;
  ctx.refuseOversized?.(body, opts.bodyBytes); // before validation and managedFields, the costly steps
  const errs = [...ctx.validator.validate(body), ...(ctx.strategy.validate?.(body) ?? [])];
  if (errs.length) throw ApiError.invalid({ group: ctx.descriptor.group, kind: ctx.descriptor.kind }, m.name ?? '', errs);
  if (ctx.shapes) dropEmptyOmitted(body, ctx.descriptor.shape ?? ctx.descriptor.kind, ctx.shapes, ctx.converts);
  const obj = opts.setsManagedFields ? body : trackManagedFields(ctx, undefined, body, opts.fieldManager ?? '');
  return { obj, warnings, requestedName, generated };
}
