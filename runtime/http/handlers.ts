// The runtime's handlers for every generated route (RouteHandlers<Handler>): they turn HTTP
// requests into registry calls and registry results into responses.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../errors/api-error.ts';
import { isObj, metaOf, type Obj } from '../registry/object.ts';
import type { DeleteOptions, DeleteResult, FieldValidation, ListParams, ListResult, Store, WatchEventType, WatchStream } from '../registry/store.ts';
import { fieldErr } from '../schema/errors.ts';
import type { FieldError } from '../schema/types.ts';
import { admissionWarnings, admitter, deleteOptionsObject, writeOptionsObject, type OperationOptions, type WebhookAdmission } from './admission.ts';
import type { UserInfo } from './auth.ts';
import { decodeObject, decodeObjectBody, mediaType, objectBodyWarnings, readBody } from './body.ts';
import { negotiateResource, type Negotiated } from './negotiation.ts';
import { queryBool } from './query-bool.ts';
import { APPLY_PATCH, applyJsonPatch, applyMergePatch, decodeApplyPatchBody, decodeJsonPatchBody, JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH } from './patch.ts';
import { encode, sendEncoded, sendValue, setWarnings, wantsPretty } from './respond.ts';
import type { Route, RouteHandlers } from './route-types.ts';
import { partialObjectMetadata, tableRow, toTable, columnDefinitions, type IncludeObject } from './table.ts';
import { apply as serverSideApply, ApplyConflictError, applyStrategicMergePatch, defaultFieldManager, ManagedFieldsError, StrategicMergePatchError, validateFieldManager } from '../patch/index.ts';
import type { Schema } from '../schema/types.ts';
import { onServerShutdown } from './lifecycle.ts';

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  query: URLSearchParams;
  params: { namespace?: string; name?: string };
  route: Route<Handler>;
  store: Store;
  user: UserInfo;
  /** The named shapes (out/validators/definitions.json) for strategic merge patch; undefined: SMP not offered. */
  shapes: Record<string, Schema> | undefined;
  /** Validating admission webhooks; undefined: none. */
  admission?: WebhookAdmission;
}

export type Handler = (ctx: RequestContext) => Promise<void>;

/** Patch types this server accepts, as the 415 message lists them. */
export function supportedPatchTypes(withSchema: boolean): string[] {
  return withSchema ? [JSON_PATCH, MERGE_PATCH, APPLY_PATCH, STRATEGIC_MERGE_PATCH] : [JSON_PATCH, MERGE_PATCH];
}

// ------------------------------------------------------------------ query parameters

const boolParam = queryBool;

function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw ApiError.badRequest(`invalid value for ${name}: strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
}

function listParams(q: URLSearchParams): ListParams {
  return {
    labelSelector: q.get('labelSelector') ?? undefined,
    fieldSelector: q.get('fieldSelector') ?? undefined,
    limit: intParam(q, 'limit'),
    continue: q.get('continue') ?? undefined,
    resourceVersion: q.get('resourceVersion') ?? undefined,
    resourceVersionMatch: q.get('resourceVersionMatch') ?? undefined,
    sendInitialEvents: boolParam(q, 'sendInitialEvents'),
    allowWatchBookmarks: boolParam(q, 'allowWatchBookmarks'),
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

function writeParams(
  q: URLSearchParams,
  kind: OptionsKind,
  userAgent: string | undefined,
  applyPatch = false,
): { dryRun: boolean; fieldValidation: FieldValidation; fieldManager: string } {
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

function includeObjectParam(q: URLSearchParams): IncludeObject {
  const v = q.get('includeObject');
  if (v === null || v === '') return 'Metadata';
  if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
  throw ApiError.badRequest(`includeObject: Unsupported value: ${JSON.stringify(v)}: supported values: "None", "Metadata", "Object"`);
}

// ------------------------------------------------------------------ rendering

function withTypeMeta(store: Store, o: Obj): Obj {
  const { kind: _k, apiVersion: _a, ...rest } = o;
  return { kind: store.descriptor.kind, apiVersion: store.apiVersion, ...rest };
}

function renderObject(ctx: RequestContext, n: Negotiated, obj: Obj): unknown {
  switch (n.shape) {
    case 'Table':
      return toTable(ctx.store.descriptor, [obj], { resourceVersion: metaOf(obj).resourceVersion }, includeObjectParam(ctx.query), n.metaGroup, ctx.store.apiVersion);
    case 'PartialObjectMetadata':
      return partialObjectMetadata(obj, n.metaGroup);
    default:
      return withTypeMeta(ctx.store, obj);
  }
}

function renderList(ctx: RequestContext, n: Negotiated, list: ListResult): unknown {
  switch (n.shape) {
    case 'Table':
      return toTable(ctx.store.descriptor, list.items, list.metadata, includeObjectParam(ctx.query), n.metaGroup, ctx.store.apiVersion);
    case 'PartialObjectMetadataList':
      return {
        kind: 'PartialObjectMetadataList',
        apiVersion: `${n.metaGroup}/v1`,
        metadata: list.metadata,
        items: list.items.map((i) => partialObjectMetadata(i, n.metaGroup)),
      };
    default:
      return list;
  }
}

function respond(ctx: RequestContext, code: number, n: Negotiated, value: unknown, warnings: readonly string[] = []): void {
  const fromWebhooks = admissionWarnings(ctx.res);
  setWarnings(ctx.res, fromWebhooks.length ? [...warnings, ...fromWebhooks] : warnings);
  sendValue(ctx.res, code, value, n.contentType, n.encoding, wantsPretty(ctx.req, ctx.query));
}

/** The decoded body and its duplicate-key warnings (fieldValidation=Strict: 400 instead). */
async function objectBody(ctx: RequestContext, fieldValidation: FieldValidation): Promise<{ body: Obj; warnings: string[] }> {
  const buf = await readBody(ctx.req);
  const decoded = decodeObject(buf, ctx.req.headers['content-type'], ctx.store.descriptor.kind);
  return { body: decoded.value as Obj, warnings: objectBodyWarnings(decoded, fieldValidation, ctx.store.descriptor.kind) };
}

function namespaceOf(ctx: RequestContext): string | undefined {
  return ctx.store.descriptor.namespaced ? ctx.params.namespace : undefined;
}

/** The object name of the route: `{name}`, except the Namespace resource's own routes. */
function nameOf(ctx: RequestContext): string {
  return ctx.params.name as string;
}

/** The store's admission callback for this request (undefined without webhook admission). */
function admitOf(ctx: RequestContext, options: OperationOptions) {
  return admitter(ctx.admission, { res: ctx.res, user: ctx.user, store: ctx.store, namedPath: ctx.params.name !== undefined }, options);
}

/** What webhooks see as `options`: the query's CreateOptions/UpdateOptions fields. */
function writeOptionsOf(ctx: RequestContext, kind: 'CreateOptions' | 'UpdateOptions', dryRun: boolean): Obj {
  return writeOptionsObject(kind, { dryRun, fieldManager: ctx.query.get('fieldManager') ?? undefined, fieldValidation: ctx.query.get('fieldValidation') ?? undefined });
}

// ------------------------------------------------------------------ handlers

async function get(ctx: RequestContext): Promise<void> {
  const n = negotiateResource(ctx.req.headers.accept, 'object', false);
  const params = { resourceVersion: ctx.query.get('resourceVersion') ?? undefined };
  if (n.shape === 'object' && n.encoding === 'json' && !wantsPretty(ctx.req, ctx.query)) {
    // The common case: the store renders (and caches) exactly what renderObject + encode would.
    const body = await ctx.store.getJson(namespaceOf(ctx), nameOf(ctx), params);
    const fromWebhooks = admissionWarnings(ctx.res);
    setWarnings(ctx.res, fromWebhooks);
    sendEncoded(ctx.res, 200, body, n.contentType);
    return;
  }
  const obj = await ctx.store.get(namespaceOf(ctx), nameOf(ctx), params);
  respond(ctx, 200, n, renderObject(ctx, n, obj));
}

async function list(ctx: RequestContext): Promise<void> {
  if (boolParam(ctx.query, 'watch')) return watch(ctx);
  const n = negotiateResource(ctx.req.headers.accept, 'list', false);
  const result = await ctx.store.list(namespaceOf(ctx), listParams(ctx.query));
  respond(ctx, 200, n, renderList(ctx, n, result));
}

/** Default watch length when timeoutSeconds is absent: upstream picks 30–60 min at random. */
function defaultWatchSeconds(): number {
  return 1800 + Math.floor(Math.random() * 1800);
}

/** Watch event lines by shared event object and event type. */
const serializedEvents = new WeakMap<Obj, Map<WatchEventType, string>>();

/** Cut off a watcher whose unsent output grows beyond this (a slow reader). */
const MAX_WATCH_BUFFER = 16 * 1024 * 1024;

async function watch(ctx: RequestContext): Promise<void> {
  const n = negotiateResource(ctx.req.headers.accept, 'list', true);
  const params = listParams(ctx.query);
  // The legacy /watch/.../{name} form watches one object.
  if (ctx.params.name !== undefined) {
    const extra = `metadata.name=${ctx.params.name.replace(/\\/g, '\\\\').replace(/,/g, '\\,').replace(/=/g, '\\=')}`;
    params.fieldSelector = params.fieldSelector ? `${params.fieldSelector},${extra}` : extra;
  }
  ctx.store.validateWatch(params);
  const res = ctx.res;
  const include = n.shape === 'Table' ? includeObjectParam(ctx.query) : 'Metadata';
  let headersWritten = false;
  let ended = false;
  let stream: WatchStream | undefined;
  let timer: NodeJS.Timeout | undefined;
  const writeHeaders = (): void => {
    if (headersWritten) return;
    headersWritten = true;
    res.writeHead(200, { 'Content-Type': n.contentType, 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
    res.flushHeaders();
  };
  const finish = (): void => {
    if (ended) return;
    ended = true;
    stream?.stop();
    if (timer) clearTimeout(timer);
    writeHeaders();
    res.end();
  };
  // The server shutting down ends the stream cleanly, as upstream's watch handler returns on its shutdown signal.
  onServerShutdown(res, finish);
  let firstTable = true;
  const serialize = (type: WatchEventType, object: Obj): string => {
    if (n.shape === 'object') {
      // Events shared by all watchers are serialized once (JSON is the only streaming format).
      let perType = serializedEvents.get(object);
      if (!perType) {
        perType = new Map();
        serializedEvents.set(object, perType);
      }
      let line = perType.get(type);
      if (line === undefined) {
        line = encode({ type, object }, 'json', false);
        perType.set(type, line);
      }
      return line;
    }
    let out: unknown = object;
    if (type !== 'ERROR') {
      if (n.shape === 'Table' && type !== 'BOOKMARK') {
        const t = toTable(ctx.store.descriptor, [], { resourceVersion: metaOf(object).resourceVersion }, include, n.metaGroup, ctx.store.apiVersion);
        t.columnDefinitions = firstTable ? columnDefinitions(ctx.store.descriptor) : [];
        firstTable = false;
        t.rows = [tableRow(ctx.store.descriptor, object, include, n.metaGroup, ctx.store.apiVersion)];
        out = t;
      } else if (n.shape === 'PartialObjectMetadata' && type !== 'BOOKMARK') {
        out = partialObjectMetadata(object, n.metaGroup);
      }
    }
    return encode({ type, object: out }, 'json', false);
  };
  const sink = {
    send(type: WatchEventType, object: Obj): void {
      if (ended) return;
      writeHeaders();
      res.write(serialize(type, object));
      if (res.writableLength > MAX_WATCH_BUFFER) {
        ended = true;
        stream?.stop();
        res.destroy();
      }
    },
    error(e: ApiError): void {
      sink.send('ERROR', e.toStatus() as unknown as Obj);
    },
    end(): void {
      finish();
    },
  };
  ctx.req.on('close', () => {
    if (!ended) {
      ended = true;
      stream?.stop();
      if (timer) clearTimeout(timer);
    }
  });
  const seconds = params.timeoutSeconds && params.timeoutSeconds > 0 ? params.timeoutSeconds : defaultWatchSeconds();
  timer = setTimeout(() => {
    stream?.bookmark();
    finish();
  }, seconds * 1000);
  try {
    stream = await ctx.store.watch(namespaceOf(ctx), params, sink);
  } catch (e) {
    if (timer) clearTimeout(timer);
    if (headersWritten) {
      // Already streaming: report in-stream, as upstream does.
      sink.error(e instanceof ApiError ? e : ApiError.internal(e));
      finish();
      return;
    }
    ended = true;
    throw e;
  }
  if (ended) stream.stop();
  else writeHeaders();
}

async function create(ctx: RequestContext): Promise<void> {
  const n = negotiateResource(ctx.req.headers.accept, 'object', false);
  const opts = writeParams(ctx.query, 'CreateOptions', ctx.req.headers['user-agent']);
  const { body, warnings } = await objectBody(ctx, opts.fieldValidation);
  const admit = admitOf(ctx, { CREATE: writeOptionsOf(ctx, 'CreateOptions', opts.dryRun) });
  const result = await ctx.store.create(namespaceOf(ctx), body, { ...opts, admit });
  respond(ctx, 201, n, renderObject(ctx, n, result.object), [...warnings, ...result.warnings]);
}

async function update(ctx: RequestContext, subresource?: 'status'): Promise<void> {
  const n = negotiateResource(ctx.req.headers.accept, 'object', false);
  const opts = writeParams(ctx.query, 'UpdateOptions', ctx.req.headers['user-agent']);
  const { body, warnings } = await objectBody(ctx, opts.fieldValidation);
  const admit = admitOf(ctx, { UPDATE: writeOptionsOf(ctx, 'UpdateOptions', opts.dryRun) });
  const result = await ctx.store.update(namespaceOf(ctx), nameOf(ctx), body, { ...opts, subresource, admit });
  respond(ctx, 200, n, renderObject(ctx, n, result.object), [...warnings, ...result.warnings]);
}

async function patch(ctx: RequestContext, subresource?: 'status'): Promise<void> {
  const n = negotiateResource(ctx.req.headers.accept, 'object', false);
  const type = mediaType(ctx.req.headers['content-type'] ?? '');
  const shapes = ctx.shapes;
  const supported = supportedPatchTypes(shapes !== undefined && shapes[ctx.store.descriptor.kind] !== undefined);
  if (!supported.includes(type)) throw ApiError.unsupportedMediaType(supported);
  const opts = writeParams(ctx.query, 'PatchOptions', ctx.req.headers['user-agent'], type === APPLY_PATCH);
  const force = boolParam(ctx.query, 'force');
  if (force !== undefined && type !== APPLY_PATCH) {
    throw ApiError.invalidOptions('PatchOptions', [fieldErr.forbidden('force', 'may not be specified for non-apply patch')]);
  }
  const text = (await readBody(ctx.req)).toString('utf8');
  if (type === APPLY_PATCH) return applyPatch(ctx, n, text, opts, force === true, subresource);
  // Decoded once (400s and duplicate-key findings before any work); a retry re-parses the known-good text afresh.
  const decoded = decodeJsonPatchBody(text, type, opts.fieldValidation);
  let firstAttempt = true;
  const patchValue = (): unknown => (firstAttempt ? ((firstAttempt = false), decoded.value) : JSON.parse(text));
  const apply = (current: Obj): Obj => {
    if (type === JSON_PATCH) return applyJsonPatch(current, { value: patchValue(), warnings: [] });
    if (type === MERGE_PATCH) return applyMergePatch(current, { value: patchValue(), warnings: [] });
    const defs = shapes as Record<string, Schema>;
    const patchDoc = patchValue();
    try {
      return applyStrategicMergePatch(current, patchDoc, defs[ctx.store.descriptor.kind], defs) as Obj;
    } catch (e) {
      if (e instanceof StrategicMergePatchError) throw e.toApiError();
      throw e;
    }
  };
  // As upstream, webhooks see the PatchOptions converted to the options of the operation performed.
  const admit = admitOf(ctx, { UPDATE: writeOptionsOf(ctx, 'UpdateOptions', opts.dryRun) });
  const result = await ctx.store.patch(namespaceOf(ctx), nameOf(ctx), apply, { ...opts, subresource, admit });
  respond(ctx, 200, n, renderObject(ctx, n, result.object), [...decoded.warnings, ...result.warnings]);
}

/**
 * Server-side apply (runtime/patch): the body (YAML or JSON) is the manager's whole intent. Creates
 * the object when it is missing (201); conflicts with other managers are 409 unless force=true.
 */
async function applyPatch(
  ctx: RequestContext,
  n: Negotiated,
  text: string,
  opts: { dryRun: boolean; fieldValidation: FieldValidation; fieldManager: string },
  force: boolean,
  subresource?: 'status',
): Promise<void> {
  const store = ctx.store;
  const shapes = ctx.shapes as Record<string, Schema>;
  const { value: applied, warnings } = decodeApplyPatchBody(text, opts.fieldValidation);
  if (!isObj(applied)) throw ApiError.badRequest('the apply patch must be an object');
  const name = nameOf(ctx);
  const ns = namespaceOf(ctx);
  // Apply that creates is a CREATE with CreateOptions; otherwise an UPDATE with UpdateOptions (upstream).
  const admit = admitOf(ctx, {
    CREATE: writeOptionsOf(ctx, 'CreateOptions', opts.dryRun),
    UPDATE: writeOptionsOf(ctx, 'UpdateOptions', opts.dryRun),
  });
  const run = (live: Obj | undefined): Obj => {
    try {
      return serverSideApply(
        live,
        applied,
        { manager: opts.fieldManager, force, apiVersion: store.apiVersion, kind: store.descriptor.kind, subresource, now: new Date(), ignoredFields: store.ignoredFields(subresource) },
        shapes[store.descriptor.kind],
        shapes,
      ).object as Obj;
    } catch (e) {
      if (e instanceof ApplyConflictError || e instanceof ManagedFieldsError) throw e.toApiError();
      throw e;
    }
  };
  for (let attempt = 0; ; attempt++) {
    let live: Obj | undefined;
    try {
      live = await store.get(ns, name);
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 404)) throw e;
    }
    try {
      if (!live) {
        if (subresource) throw ApiError.notFound(store.resource, name);
        const obj = run(undefined);
        const m = (isObj(obj.metadata) ? obj.metadata : (obj.metadata = {})) as Record<string, unknown>;
        if (m.name === undefined) m.name = name;
        const created = await store.create(ns, obj, { ...opts, managedFieldsSet: true, admit });
        respond(ctx, 201, n, renderObject(ctx, n, created.object), [...warnings, ...created.warnings]);
        return;
      }
      const obj = run(live);
      const m = (isObj(obj.metadata) ? obj.metadata : (obj.metadata = {})) as Record<string, unknown>;
      m.resourceVersion = metaOf(live).resourceVersion;
      const updated = await store.update(ns, name, obj, { ...opts, subresource, fromPatch: true, managedFieldsSet: true, admit });
      respond(ctx, 200, n, renderObject(ctx, n, updated.object), [...warnings, ...updated.warnings]);
      return;
    } catch (e) {
      // Another writer got in between: read again and re-apply, as upstream does.
      if (e instanceof ApiError && (e.reason === 'Conflict' || e.reason === 'AlreadyExists') && !e.details?.causes && attempt < 5) continue;
      throw e;
    }
  }
}

async function deleteOptions(ctx: RequestContext): Promise<DeleteOptions> {
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
  const od = boolParam(q, 'orphanDependents');
  if (od !== undefined) opts.orphanDependents = od;
  const dr = q.getAll('dryRun');
  if (dr.length) opts.dryRun = dryRunParam(dr, 'DeleteOptions');
  return opts;
}

function renderDelete(ctx: RequestContext, n: Negotiated, r: DeleteResult): unknown {
  return r.kind === 'status' ? r.status : renderObject(ctx, n, r.object);
}

async function del(ctx: RequestContext): Promise<void> {
  const n = negotiateResource(ctx.req.headers.accept, 'object', false);
  const opts = await deleteOptions(ctx);
  const admit = admitOf(ctx, { DELETE: deleteOptionsObject(opts) });
  const result = await ctx.store.delete(namespaceOf(ctx), nameOf(ctx), { ...opts, admit });
  const code = result.kind === 'object' && result.deferred && opts.orphanDependents === false ? 202 : 200;
  respond(ctx, code, n, renderDelete(ctx, n, result));
}

async function deleteCollection(ctx: RequestContext): Promise<void> {
  const n = negotiateResource(ctx.req.headers.accept, 'list', false);
  const opts = await deleteOptions(ctx);
  const params = listParams(ctx.query);
  const admit = admitOf(ctx, { DELETE: deleteOptionsObject(opts) });
  const result = await ctx.store.deleteCollection(namespaceOf(ctx), params, { ...opts, admit });
  respond(ctx, 200, n, renderList(ctx, n, result));
}

export const handlers: RouteHandlers<Handler> = {
  get,
  list,
  watch,
  create,
  update: (ctx) => update(ctx),
  patch: (ctx) => patch(ctx),
  delete: del,
  deleteCollection,
  getStatus: get,
  updateStatus: (ctx) => update(ctx, 'status'),
  patchStatus: (ctx) => patch(ctx, 'status'),
};
