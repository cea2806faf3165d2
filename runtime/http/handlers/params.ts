// Query parameters and request bodies of the resource handlers, parsed once with upstream's
// answers for bad values (upstream's handlers/rest.go).

import { isObj, type Obj } from '../../api/object.ts';
import { ApiError } from '../../errors/api-error.ts';
import { defaultFieldManager, validateFieldManager } from '../../patch/index.ts';
import type { DeleteOptions, FieldValidation, ListParams } from '../../registry/store-types.ts';
import { fieldErr } from '../../schema/errors.ts';
import type { FieldError } from '../../schema/types.ts';
import { decodeObject, decodeObjectBody, objectBodyWarnings, readBody } from '../body.ts';
import { queryBool } from '../query-bool.ts';
import type { IncludeObject } from '../table.ts';
import type { RequestContext } from './context.ts';

export function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw ApiError.badRequest(`invalid value for ${name}: strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
}

export function listParams(q: URLSearchParams): ListParams {
  return {
    labelSelector: q.get('labelSelector') ?? undefined,
    fieldSelector: q.get('fieldSelector') ?? undefined,
    limit: intParam(q, 'limit'),
    continue: q.get('continue') ?? undefined,
    resourceVersion: q.get('resourceVersion') ?? undefined,
    resourceVersionMatch: q.get('resourceVersionMatch') ?? undefined,
    sendInitialEvents: queryBool(q, 'sendInitialEvents'),
    allowWatchBookmarks: queryBool(q, 'allowWatchBookmarks'),
    timeoutSeconds: intParam(q, 'timeoutSeconds'),
  };
}

type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';

function dryRunParam(values: readonly string[], kind: OptionsKind): boolean {
  const errs: FieldError[] = [];
  for (const v of values) if (v !== 'All') errs.push(fieldErr.notSupported('dryRun', v, ['All']));
  if (errs.length) throw ApiError.invalidOptions(kind, errs);
  return values.length > 0;
}

export interface WriteParams {
  dryRun: boolean;
  fieldValidation: FieldValidation;
  fieldManager: string;
}

export function writeParams(q: URLSearchParams, kind: OptionsKind, userAgent: string | undefined, applyPatch = false): WriteParams {
  const dryRun = dryRunParam(q.getAll('dryRun'), kind);
  const fv = q.get('fieldValidation') ?? '';
  const errs: FieldError[] = [];
  if (fv !== '' && fv !== 'Strict' && fv !== 'Warn' && fv !== 'Ignore') errs.push(fieldErr.notSupported('fieldValidation', fv, ['Ignore', 'Warn', 'Strict']));
  const fm = q.get('fieldManager') ?? undefined;
  errs.push(...validateFieldManager(fm, { apply: applyPatch }));
  if (errs.length) throw ApiError.invalidOptions(kind, errs);
  // Without fieldManager, the manager is the User-Agent up to its first `/` (apply requires one).
  return { dryRun, fieldValidation: (fv || 'Warn') as FieldValidation, fieldManager: defaultFieldManager(fm, userAgent) };
}

export function includeObjectParam(q: URLSearchParams): IncludeObject {
  const v = q.get('includeObject');
  if (v === null || v === '') return 'Metadata';
  if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
  throw ApiError.badRequest(`includeObject: Unsupported value: ${JSON.stringify(v)}: supported values: "None", "Metadata", "Object"`);
}

/** The decoded object body, its size and its duplicate-key warnings (fieldValidation=Strict: 400 instead). */
export async function objectBody(ctx: RequestContext, fieldValidation: FieldValidation): Promise<{ body: Obj; bodyBytes: number; warnings: string[] }> {
  const buf = await readBody(ctx.req);
  const decoded = decodeObject(buf, ctx.req.headers['content-type'], ctx.store.descriptor.kind);
  return { body: decoded.value as Obj, bodyBytes: buf.length, warnings: objectBodyWarnings(decoded, fieldValidation, ctx.store.descriptor.kind) };
}

/** DeleteOptions from the body (when there is one) and the query, the query winning. */
export async function deleteOptions(ctx: RequestContext): Promise<DeleteOptions> {
  const q = ctx.query;
  const opts: DeleteOptions = {};
  const buf = await readBody(ctx.req);
  if (buf.length && buf.toString('utf8').trim() !== '') {
    const body = decodeObjectBody(buf, ctx.req.headers['content-type']) as Obj;
    if (body.kind !== undefined && body.kind !== 'DeleteOptions') {
      throw ApiError.badRequest(`the kind in the data (${String(body.kind)}) does not match the expected kind (DeleteOptions)`);
    }
    if (typeof body.gracePeriodSeconds === 'number') opts.gracePeriodSeconds = body.gracePeriodSeconds;
    if (typeof body.propagationPolicy === 'string') opts.propagationPolicy = body.propagationPolicy;
    if (typeof body.orphanDependents === 'boolean') opts.orphanDependents = body.orphanDependents;
    if (isObj(body.preconditions)) {
      const p = body.preconditions;
      opts.preconditions = {};
      if (typeof p.uid === 'string') opts.preconditions.uid = p.uid;
      if (typeof p.resourceVersion === 'string') opts.preconditions.resourceVersion = p.resourceVersion;
    }
    if (Array.isArray(body.dryRun)) opts.dryRun = dryRunParam(body.dryRun.map(String), 'DeleteOptions');
  }
  const gp = intParam(q, 'gracePeriodSeconds');
  if (gp !== undefined) opts.gracePeriodSeconds = gp;
  const pp = q.get('propagationPolicy');
  if (pp !== null) opts.propagationPolicy = pp;
  const od = queryBool(q, 'orphanDependents');
  if (od !== undefined) opts.orphanDependents = od;
  const dr = q.getAll('dryRun');
  if (dr.length) opts.dryRun = dryRunParam(dr, 'DeleteOptions');
  return opts;
}
