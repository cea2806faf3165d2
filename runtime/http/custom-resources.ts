// Serving the custom resources of established CRDs over HTTP: `/apis/<group>/<version>/[namespaces/<ns>/]<plural>`
// for every served version (runtime/crd/served-resources.ts holds their stores), with the same
// handlers as the built-in resources, plus /status and /scale when enabled, discovery entries and
// OpenAPI documents.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { isObj, meta, type Obj } from '../api/object.ts';
import { CustomResourceError, storageVersion } from '../crd/index.ts';
import type { CustomResourceVersion } from '../crd/custom-resource.ts';
import type { InstalledResource, ServedCustomResources, ServedVersion } from '../crd/served-resources.ts';
import { ApiError } from '../errors/api-error.ts';
import type { Store } from '../registry/store.ts';
import { fieldErr } from '../schema/errors.ts';
import type { UserInfo } from './auth.ts';
import { decodeObjectBody, mediaType, readBody } from './body.ts';
import { CustomResourceOpenApi } from './custom-resource-openapi.ts';
import type { GroupVersion } from './discovery.ts';
import { writeOptionsObject } from './handlers/admission-options.ts';
import { admissionRequest } from './handlers/context.ts';
import { handlers, type Handler, type RequestContext } from './handlers/index.ts';
import { negotiateResource } from './negotiation.ts';
import type { OpenApiDocuments } from './openapi.ts';
import { APPLY_PATCH, applyJsonPatch, applyMergePatch, JSON_PATCH, MERGE_PATCH } from './patch.ts';
import { sendValue, setWarnings, wantsPretty } from './respond.ts';
import type { Route } from './route-types.ts';
import { completePrinterColumns } from './table.ts';

/** What the API server asks of the custom resource serving (server.ts). */
export interface CustomResourceRouter {
  /** Bumped whenever the served set changes (discovery is rebuilt then). */
  readonly generation: number;
  groupVersions(): GroupVersion[];
  /** Serves the request when the path is a custom resource path; false otherwise. */
  serve(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams, user: UserInfo): Promise<boolean>;
}

/** The patch types custom resources accept (upstream: no strategic merge patch). */
export const CUSTOM_RESOURCE_PATCH_TYPES = [JSON_PATCH, MERGE_PATCH, APPLY_PATCH];
const SCALE_PATCH_TYPES = [JSON_PATCH, MERGE_PATCH];
const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const SUB_VERBS = ['get', 'patch', 'update'];

export interface CustomResourceServingOptions {
  served: ServedCustomResources;
  openapi: OpenApiDocuments;
}

const FAKE_ROUTE = {} as Route<Handler>;

export class CustomResourceServing implements CustomResourceRouter {
  generation = 0;
  /** `<group>/<version>` → plural → served version. */
  private index = new Map<string, Map<string, { installed: InstalledResource; served: ServedVersion }>>();
  private gvs: GroupVersion[] = [];
  private readonly openapi: CustomResourceOpenApi;

  constructor(private readonly o: CustomResourceServingOptions) {
    this.openapi = new CustomResourceOpenApi(o.openapi);
  }

  /** Routing, discovery and OpenAPI after the served set changed. */
  rebuild(): void {
    const index = new Map<string, Map<string, { installed: InstalledResource; served: ServedVersion }>>();
    const gvs = new Map<string, GroupVersion>();
    const all: CustomResourceVersion[] = [];
    for (const inst of this.o.served.all()) {
      for (const [v, served] of inst.versions) {
        completePrinterColumns.add(served.descriptor);
        const key = `${inst.group}/${v}`;
        if (!index.has(key)) index.set(key, new Map());
        (index.get(key) as Map<string, { installed: InstalledResource; served: ServedVersion }>).set(served.descriptor.plural, { installed: inst, served });
        if (!gvs.has(key)) gvs.set(key, { group: inst.group, version: v, resources: [] });
        const subresources: GroupVersion['resources'][number]['subresources'] = [];
        if (served.crv.scale) subresources.push({ name: 'scale', verbs: SUB_VERBS, responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' } });
        if (served.crv.status) subresources.push({ name: 'status', verbs: SUB_VERBS });
        (gvs.get(key) as GroupVersion).resources.push({ descriptor: served.descriptor, verbs: VERBS, subresources, storageVersion: storageVersion(inst.crd) });
        all.push(served.crv);
      }
    }
    this.index = index;
    this.gvs = [...gvs.values()];
    this.openapi.update(all);
    this.generation++;
  }

  groupVersions(): GroupVersion[] {
    return this.gvs;
  }

  // ---------------------------------------------------------------- requests

  async serve(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams, user: UserInfo): Promise<boolean> {
    const parts = path.split('/');
    if (parts[1] !== 'apis' || parts.length < 5) return false;
    const byPlural = this.index.get(`${parts[2]}/${parts[3]}`);
    if (!byPlural) return false;
    let rest = parts.slice(4);
    let watchPrefix = false;
    if (rest[0] === 'watch') {
      watchPrefix = true;
      rest = rest.slice(1);
    }
    let namespace: string | undefined;
    if (rest[0] === 'namespaces' && rest.length >= 3 && byPlural.get(rest[2])?.served.descriptor.namespaced) {
      namespace = rest[1];
      rest = rest.slice(2);
    }
    const found = byPlural.get(rest[0] ?? '');
    if (!found || rest.length > 3 || rest.some((p) => p === '')) return false;
    const { installed, served } = found;
    const namespaced = served.descriptor.namespaced;
    const name = rest[1];
    const sub = rest[2];
    const method = req.method ?? 'GET';
    if (namespaced && namespace === undefined && name !== undefined) return false;

    let handler: Handler | undefined;
    let scale = false;
    if (watchPrefix) {
      if (sub !== undefined) return false;
      if (method === 'GET') handler = handlers.watch;
    } else if (name === undefined) {
      const scoped = !namespaced || namespace !== undefined;
      if (method === 'GET') handler = handlers.list;
      else if (method === 'POST' && scoped) handler = handlers.create;
      else if (method === 'DELETE' && scoped) handler = handlers.deleteCollection;
    } else if (sub === undefined) {
      handler = { GET: handlers.get, PUT: handlers.update, PATCH: handlers.patch, DELETE: handlers.delete }[method];
    } else if (sub === 'status' && served.crv.status) {
      handler = { GET: handlers.getStatus, PUT: handlers.updateStatus, PATCH: handlers.patchStatus }[method];
    } else if (sub === 'scale' && served.crv.scale) {
      scale = true;
    } else return false;

    const warning = served.crv.warning;
    if (warning !== undefined) withWarning(res, warning);
    if (!scale && !handler) throw ApiError.methodNotAllowed();
    if (method === 'PATCH') {
      const accepted = scale ? SCALE_PATCH_TYPES : CUSTOM_RESOURCE_PATCH_TYPES;
      if (!accepted.includes(mediaType(req.headers['content-type'] ?? ''))) throw ApiError.unsupportedMediaType(accepted);
    }
    if (installed.crd.metadata?.deletionTimestamp && (handler === handlers.create || (method === 'PATCH' && mediaType(req.headers['content-type']) === APPLY_PATCH))) {
      if (handler === handlers.create || !(await exists(served.store, namespace, name as string))) {
        throw new ApiError(405, 'MethodNotAllowed', 'create not allowed while custom resource definition is terminating');
      }
    }
    const ctx: RequestContext = {
      req,
      res,
      query,
      params: { namespace, name },
      route: FAKE_ROUTE,
      store: served.store,
      user,
      shapes: served.shapes,
    };
    if (scale) await this.serveScale(ctx, served, method);
    else await (handler as Handler)(ctx);
    return true;
  }

  // ---------------------------------------------------------------- /scale

  private async serveScale(ctx: RequestContext, served: ServedVersion, method: string): Promise<void> {
    const sc = served.crv.scale;
    if (!sc) throw ApiError.methodNotAllowed();
    const n = negotiateResource(ctx.req.headers.accept, 'object', false);
    const ns = ctx.params.namespace;
    const name = ctx.params.name as string;
    const store = served.store;
    const toScale = (o: Obj): Obj => {
      try {
        return sc.toScale(o);
      } catch (e) {
        if (e instanceof CustomResourceError) throw ApiError.internal(e);
        throw e;
      }
    };
    const send = (o: Obj): void => sendValue(ctx.res, 200, o, n.contentType, n.encoding, wantsPretty(ctx.req, ctx.query));
    if (method === 'GET') return send(toScale(await store.get(ns, name)));
    if (method !== 'PUT' && method !== 'PATCH') throw ApiError.methodNotAllowed();
    const dryRunValues = ctx.query.getAll('dryRun');
    for (const v of dryRunValues) if (v !== 'All') throw ApiError.invalidOptions(method === 'PUT' ? 'UpdateOptions' : 'PatchOptions', [fieldErr.notSupported('dryRun', v, ['All'])]);
    const dryRun = dryRunValues.length > 0;
    const buf = await readBody(ctx.req);
    const replicasOf = (s: unknown): number => {
      const r = isObj(s) && isObj(s.spec) ? s.spec.replicas : undefined;
      const errs = [];
      if (r === undefined || r === null) errs.push(fieldErr.required('spec.replicas'));
      else if (typeof r !== 'number' || !Number.isInteger(r)) errs.push(fieldErr.invalid('spec.replicas', r, 'must be an integer'));
      else if (r < 0) errs.push(fieldErr.invalid('spec.replicas', r, 'must be greater than or equal to 0'));
      if (errs.length) throw ApiError.invalid({ group: 'autoscaling', kind: 'Scale' }, name, errs);
      return r as number;
    };
    let apply: (cur: Obj) => Obj;
    if (method === 'PUT') {
      const body = decodeObjectBody(buf, ctx.req.headers['content-type']) as Obj;
      const replicas = replicasOf(body);
      const rv = isObj(body.metadata) && typeof body.metadata.resourceVersion === 'string' && body.metadata.resourceVersion !== '' ? body.metadata.resourceVersion : undefined;
      apply = (cur) => {
        if (rv !== undefined) meta(cur).resourceVersion = rv;
        sc.setReplicas(cur, replicas);
        return cur;
      };
    } else {
      const type = mediaType(ctx.req.headers['content-type'] ?? '');
      const text = buf.toString('utf8');
      apply = (cur) => {
        const scaleObj = toScale(cur);
        const patched = type === JSON_PATCH ? applyJsonPatch(scaleObj, text) : applyMergePatch(scaleObj, text);
        sc.setReplicas(cur, replicasOf(patched));
        return cur;
      };
    }
    const fieldManager = ctx.query.get('fieldManager') ?? (ctx.req.headers['user-agent'] ?? '').split('/')[0];
    const request = admissionRequest(ctx, { UPDATE: writeOptionsObject('UpdateOptions', { dryRun, fieldManager: ctx.query.get('fieldManager') ?? undefined }) });
    const result = await store.patch(ns, name, apply, { dryRun, fieldManager, fieldValidation: 'Ignore', request });
    send(toScale(result.object));
  }
}

async function exists(store: Store, ns: string | undefined, name: string): Promise<boolean> {
  try {
    await store.get(ns, name);
    return true;
  } catch (e) {
    if (e instanceof ApiError && e.code === 404) return false;
    throw e;
  }
}

/** Adds a deprecation warning to every `Warning` header the response gets (errors included). */
function withWarning(res: ServerResponse, warning: string): void {
  const original = res.setHeader.bind(res);
  const escaped = `299 - "${warning.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  res.setHeader = ((name: string, value: number | string | readonly string[]) => {
    if (name.toLowerCase() === 'warning') {
      const values = Array.isArray(value) ? [...(value as string[])] : [String(value)];
      return original(name, values.includes(escaped) ? values : [escaped, ...values]);
    }
    return original(name, value);
  }) as typeof res.setHeader;
  setWarnings(res, [warning]);
}
