// OpenAPI for custom resources: one v3 document per group/version of established CRDs
// (`/openapi/v3/apis/<group>/<version>`, listed in `/openapi/v3`) and their definitions in
// `/openapi/v2`, built from the CRDs' schemas. The served OpenApiDocuments object is updated in place.

import { createHash } from 'node:crypto';
import type { CustomResourceVersion } from '../crd/index.ts';
import { withClientAliases, type OpenApiDocument, type OpenApiDocuments } from './openapi.ts';
import { jsonRoundTrip } from '../json/clone.ts';
import { isObject } from '../json/is-object.ts';

type Obj = Record<string, unknown>;

const META = 'io.cluster.apimachinery.pkg.apis.meta.v1';
const SCALE = 'io.cluster.api.autoscaling.v1.Scale';
/** Meta types a custom resource document refers to (copied from the built-in documents). */
const META_TYPES = ['ObjectMeta', 'ListMeta', 'ManagedFieldsEntry', 'OwnerReference', 'Time', 'FieldsV1', 'Status', 'StatusCause', 'StatusDetails', 'DeleteOptions', 'Preconditions', 'Patch', 'WatchEvent'].map(
  (n) => `${META}.${n}`,
);

const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];

function makeDoc(raw: Buffer): OpenApiDocument {
  const body = withClientAliases(raw);
  return { body, hash: createHash('sha512').update(body).digest('hex').toUpperCase() };
}

/** upstream's definition name: reversed group, version, kind (`io.cluster.example.v1.Widget`). */
export function definitionName(group: string, version: string, kind: string): string {
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

function rewriteRefs(v: unknown, from: string, to: string): unknown {
  if (Array.isArray(v)) return v.map((x) => rewriteRefs(x, from, to));
  if (!isObject(v)) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) out[k] = k === '$ref' && typeof x === 'string' && x.startsWith(from) ? to + x.slice(from.length) : rewriteRefs(x, from, to);
  return out;
}

/** The object schema of a custom resource version, referring to meta types under `refBase`. */
function objectSchema(v: CustomResourceVersion, refBase: string): Obj {
  const raw = v.version.schema?.openAPIV3Schema;
  const schema: Obj = isObject(raw) ? jsonRoundTrip(raw) : { type: 'object', 'x-cluster-preserve-unknown-fields': true };
  const props: Obj = isObject(schema.properties) ? schema.properties : {};
  schema.properties = {
    ...props,
    apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
    kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
    metadata: { allOf: [{ $ref: `${refBase}${META}.ObjectMeta` }], description: 'Standard object metadata.' },
  };
  schema.type = 'object';
  schema['x-cluster-group-version-kind'] = [{ group: v.group, kind: v.kind, version: v.version.name }];
  return schema;
}

function listSchema(v: CustomResourceVersion, refBase: string, itemRef: string): Obj {
  return {
    type: 'object',
    description: `${v.listKind} is a list of ${v.kind}`,
    required: ['items'],
    properties: {
      apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
      items: { type: 'array', description: `List of ${v.plural}.`, items: { $ref: itemRef } },
      kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
      metadata: { allOf: [{ $ref: `${refBase}${META}.ListMeta` }], description: 'Standard list metadata.' },
    },
    'x-cluster-group-version-kind': [{ group: v.group, kind: v.listKind, version: v.version.name }],
  };
}

const SCALE_SCHEMA: Obj = {
  type: 'object',
  description: 'Scale represents a scaling request for a resource.',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { allOf: [{ $ref: `#/components/schemas/${META}.ObjectMeta` }] },
    spec: { type: 'object', properties: { replicas: { type: 'integer', format: 'int32', description: 'replicas is the desired number of instances for the scaled object.' } } },
    status: {
      type: 'object',
      required: ['replicas'],
      properties: { replicas: { type: 'integer', format: 'int32' }, selector: { type: 'string' } },
    },
  },
  'x-cluster-group-version-kind': [{ group: 'autoscaling', kind: 'Scale', version: 'v1' }],
};

function json(ref: string): Obj {
  return { 'application/json': { schema: { $ref: ref } }, 'application/yaml': { schema: { $ref: ref } } };
}

/** v3 paths of one custom resource version (the operations kubectl looks at). */
function v3Paths(v: CustomResourceVersion, objRef: string, listRef: string): Obj {
  const base = `/apis/${v.group}/${v.version.name}${v.namespaced ? '/namespaces/{namespace}' : ''}/${v.plural}`;
  const gvk = { group: v.group, version: v.version.name, kind: v.kind };
  const nsParam = v.namespaced ? [{ name: 'namespace', in: 'path', required: true, schema: { type: 'string', uniqueItems: true } }] : [];
  const nameParam = { name: 'name', in: 'path', required: true, schema: { type: 'string', uniqueItems: true } };
  const q = (name: string, type = 'string'): Obj => ({ name, in: 'query', schema: { type, uniqueItems: true } });
  // upstream's builder gives every route the option parameters of its action, subresources included:
  // kubectl's fieldValidation probe stops at the first PATCH of the kind it meets (map order), so a
  // /status or /scale PATCH without fieldValidation sends it to client-side validation at random
  const listParams = [q('labelSelector'), q('fieldSelector'), q('limit', 'integer'), q('continue'), q('resourceVersion'), q('resourceVersionMatch'), q('sendInitialEvents', 'boolean'), q('timeoutSeconds', 'integer'), q('watch', 'boolean'), q('allowWatchBookmarks', 'boolean')];
  const params: Record<string, Obj[]> = {
    list: listParams,
    deletecollection: [...listParams.filter((p) => p.name !== 'watch' && p.name !== 'allowWatchBookmarks'), q('dryRun'), q('gracePeriodSeconds', 'integer'), q('propagationPolicy')],
    get: [q('resourceVersion')],
    post: [q('dryRun'), q('fieldManager'), q('fieldValidation')],
    put: [q('dryRun'), q('fieldManager'), q('fieldValidation')],
    patch: [q('dryRun'), q('fieldManager'), q('fieldValidation'), q('force', 'boolean')],
    delete: [q('dryRun'), q('gracePeriodSeconds', 'integer'), q('orphanDependents', 'boolean'), q('propagationPolicy')],
  };
  const op = (action: string, id: string, extra: Obj, sub = ''): Obj => ({
    // upstream's ids (`patchNamespacedBackupStatus`): unique per operation, as OpenAPI requires
    operationId: `${id}${v.namespaced ? 'Namespaced' : ''}${v.kind}${sub}`,
    'x-cluster-action': action,
    'x-cluster-group-version-kind': gvk,
    parameters: [q('pretty'), ...(params[action] ?? [])],
    ...extra,
  });
  const ok = (ref: string): Obj => ({ '200': { description: 'OK', content: json(ref) }, '401': { description: 'Unauthorized' } });
  const body = (ref: string): Obj => ({ content: { 'application/json': { schema: { $ref: ref } }, 'application/yaml': { schema: { $ref: ref } } }, required: true });
  const patchBody = (types: readonly string[]): Obj => ({ content: Object.fromEntries(types.map((t) => [t, { schema: { $ref: `#/components/schemas/${META}.Patch` } }])), required: true });
  const paths: Obj = {
    [base]: {
      parameters: nsParam,
      get: op('list', 'list', { responses: ok(listRef) }),
      post: op('post', 'create', { requestBody: body(objRef), responses: { '201': { description: 'Created', content: json(objRef) } } }),
      delete: op('deletecollection', 'deletecollection', { responses: ok(`#/components/schemas/${META}.Status`) }),
    },
    [`${base}/{name}`]: {
      parameters: [nameParam, ...nsParam],
      get: op('get', 'read', { responses: ok(objRef) }),
      put: op('put', 'replace', { requestBody: body(objRef), responses: ok(objRef) }),
      patch: op('patch', 'patch', { requestBody: patchBody(PATCH_TYPES), responses: ok(objRef) }),
      delete: op('delete', 'delete', { responses: ok(`#/components/schemas/${META}.Status`) }),
    },
  };
  if (v.status) {
    paths[`${base}/{name}/status`] = {
      parameters: [nameParam, ...nsParam],
      get: op('get', 'read', { responses: ok(objRef) }, 'Status'),
      put: op('put', 'replace', { requestBody: body(objRef), responses: ok(objRef) }, 'Status'),
      patch: op('patch', 'patch', { requestBody: patchBody(PATCH_TYPES), responses: ok(objRef) }, 'Status'),
    };
  }
  if (v.scale) {
    const scaleRef = `#/components/schemas/${SCALE}`;
    paths[`${base}/{name}/scale`] = {
      parameters: [nameParam, ...nsParam],
      get: op('get', 'read', { responses: ok(scaleRef) }, 'Scale'),
      put: op('put', 'replace', { requestBody: body(scaleRef), responses: ok(scaleRef) }, 'Scale'),
      patch: op('patch', 'patch', { requestBody: patchBody(PATCH_TYPES.slice(0, 2)), responses: ok(scaleRef) }, 'Scale'),
    };
  }
  return paths;
}

/**
 * Keeps the custom resource entries of an OpenApiDocuments current. `update` replaces every custom
 * resource document with the given set (what is served now).
 */
export class CustomResourceOpenApi {
  private readonly metaSchemas: Obj = {};
  private readonly security: unknown;
  private readonly securitySchemes: unknown;
  private readonly info: unknown;
  private readonly baseV2: Obj | undefined;
  private readonly owned = new Set<string>();
  private readonly builtinKeys: Set<string>;

  constructor(private readonly docs: OpenApiDocuments) {
    this.builtinKeys = new Set(docs.v3.keys());
    // Meta types, security and info as the built-in documents have them.
    let sample: Obj | undefined;
    for (const [k, d] of docs.v3) {
      if (!k.startsWith('apis/')) continue;
      const parsed = JSON.parse(d.body.toString('utf8')) as Obj;
      const schemas = isObject(parsed.components) && isObject(parsed.components.schemas) ? parsed.components.schemas : {};
      for (const n of META_TYPES) if (schemas[n] !== undefined && this.metaSchemas[n] === undefined) this.metaSchemas[n] = schemas[n];
      sample ??= parsed;
      if (META_TYPES.every((n) => this.metaSchemas[n] !== undefined)) break;
    }
    this.info = sample?.info ?? { title: 'clusterspec', version: 'unversioned' };
    this.security = sample?.security;
    this.securitySchemes = isObject(sample?.components) ? sample.components.securitySchemes : undefined;
    this.baseV2 = docs.v2 ? (JSON.parse(docs.v2.body.toString('utf8')) as Obj) : undefined;
  }

  /** `served`: every served custom resource version right now. */
  update(served: readonly CustomResourceVersion[]): void {
    const byGv = new Map<string, CustomResourceVersion[]>();
    for (const v of served) {
      const key = `apis/${v.group}/${v.version.name}`;
      if (!byGv.has(key)) byGv.set(key, []);
      (byGv.get(key) as CustomResourceVersion[]).push(v);
    }
    for (const key of this.owned) if (!byGv.has(key)) this.docs.v3.delete(key);
    this.owned.clear();
    for (const [key, versions] of byGv) {
      // A group/version that also has built-in resources keeps its generated document.
      if (this.builtinKeys.has(key)) continue;
      this.docs.v3.set(key, makeDoc(Buffer.from(JSON.stringify(this.v3Document(versions)))));
      this.owned.add(key);
    }
    if (this.baseV2) this.docs.v2 = makeDoc(Buffer.from(JSON.stringify(this.v2Document(served))));
  }

  private v3Document(versions: readonly CustomResourceVersion[]): Obj {
    const schemas: Obj = { ...this.metaSchemas };
    let paths: Obj = {};
    for (const v of [...versions].sort((a, b) => (a.plural < b.plural ? -1 : 1))) {
      const name = definitionName(v.group, v.version.name, v.kind);
      const listName = definitionName(v.group, v.version.name, v.listKind);
      schemas[name] = objectSchema(v, '#/components/schemas/');
      schemas[listName] = listSchema(v, '#/components/schemas/', `#/components/schemas/${name}`);
      if (v.scale) schemas[SCALE] = SCALE_SCHEMA;
      paths = { ...paths, ...v3Paths(v, `#/components/schemas/${name}`, `#/components/schemas/${listName}`) };
    }
    const components: Obj = { schemas };
    if (this.securitySchemes !== undefined) components.securitySchemes = this.securitySchemes;
    const doc: Obj = { openapi: '3.0.0', info: this.info, paths, components };
    if (this.security !== undefined) doc.security = this.security;
    return doc;
  }

  private v2Document(served: readonly CustomResourceVersion[]): Obj {
    const base = this.baseV2 as Obj;
    const definitions: Obj = { ...(isObject(base.definitions) ? base.definitions : {}) };
    const paths: Obj = { ...(isObject(base.paths) ? base.paths : {}) };
    for (const v of served) {
      const name = definitionName(v.group, v.version.name, v.kind);
      const listName = definitionName(v.group, v.version.name, v.listKind);
      definitions[name] = rewriteRefs(objectSchema(v, '#/definitions/'), '#/components/schemas/', '#/definitions/');
      definitions[listName] = listSchema(v, '#/definitions/', `#/definitions/${name}`);
      const p = `/apis/${v.group}/${v.version.name}${v.namespaced ? '/namespaces/{namespace}' : ''}/${v.plural}`;
      const gvk = { group: v.group, version: v.version.name, kind: v.kind };
      paths[p] = { get: { operationId: `list${v.kind}`, produces: ['application/json'], responses: { '200': { description: 'OK', schema: { $ref: `#/definitions/${listName}` } } }, 'x-cluster-action': 'list', 'x-cluster-group-version-kind': gvk } };
      paths[`${p}/{name}`] = { get: { operationId: `read${v.kind}`, produces: ['application/json'], responses: { '200': { description: 'OK', schema: { $ref: `#/definitions/${name}` } } }, 'x-cluster-action': 'get', 'x-cluster-group-version-kind': gvk } };
    }
    return { ...base, paths, definitions };
  }
}
