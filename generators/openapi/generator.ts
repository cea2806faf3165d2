// out/openapi: one OpenAPI 3.0 document per group-version (as upstream serves
// /openapi/v3/apis/<group>/<version>), a combined document, and a Swagger 2.0 document for /openapi/v2.
import type { OpenAPIV2, OpenAPIV3 } from 'openapi-types';
import type { Schema } from '../../runtime/schema/types.ts';
import { listShapeOf, type Model, type Resource } from '../model/model.ts';
import { operationsOf, PATCH_MEDIA_TYPES, type Operation } from '../model/operations.ts';
import type { Generator, OutputFile } from '../output.ts';
import { projectSchema, type Dialect } from './project-schema.ts';
import { qualifiedName } from './qualified-names.ts';

const RESPONSE_MEDIA = ['application/json', 'application/yaml'];
const WATCH_MEDIA = ['application/json;stream=watch'];

/** The list kind of a resource, derived: {apiVersion, items, kind, metadata}. */
export function listSchema(r: Resource): Schema {
  return {
    type: 'object',
    description: `${r.listKind} is a list of ${r.kind} objects.`,
    required: ['items'],
    properties: {
      apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
      items: { type: 'array', description: `List of ${r.plural}.`, items: { $ref: `#/components/schemas/${r.shape}` } },
      kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
      metadata: { $ref: '#/components/schemas/ListMeta', description: 'Standard list metadata.' },
    },
    'x-cluster-group-version-kind': [{ group: r.group, kind: r.listKind, version: r.version }],
  };
}

/** The spec schema of a shape, with the group-version-kind extension on resource kinds. */
export function shapeSchema(model: Model, name: string): Schema {
  const list = model.resources.find((r) => listShapeOf(r) === name);
  if (list) return listSchema(list);
  const s = model.shapes.get(name)!.schema;
  const r = model.resources.find((x) => x.shape === name);
  return r ? { ...s, 'x-cluster-group-version-kind': [{ group: r.group, kind: r.kind, version: r.version }] } : s;
}

/** Every shape reachable from the given roots, sorted. */
export function reachableShapes(model: Model, roots: string[]): string[] {
  const seen = new Set<string>();
  const visit = (name: string): void => {
    if (seen.has(name)) return;
    seen.add(name);
    collectRefs(shapeSchema(model, name)).forEach(visit);
  };
  roots.forEach(visit);
  return [...seen].sort();
}

export function collectRefs(node: unknown, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(node)) node.forEach((x) => collectRefs(x, into));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') into.add(v.replace('#/components/schemas/', ''));
      else collectRefs(v, into);
    }
  }
  return into;
}

function gvKey(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

function operationShapes(op: Operation): string[] {
  return [...op.responses.map((r) => r.shape), ...(op.requestBody ? [op.requestBody.shape] : [])];
}

function v3Operation(model: Model, r: Resource, op: Operation): OpenAPIV3.OperationObject {
  const ref = (shape: string) => ({ $ref: `#/components/schemas/${qualifiedName(model, shape)}` });
  const watch = op.action === 'watch' || op.action === 'watchlist';
  const media = watch ? [...RESPONSE_MEDIA, ...WATCH_MEDIA] : RESPONSE_MEDIA;
  const responses: OpenAPIV3.ResponsesObject = {};
  for (const resp of op.responses) {
    responses[String(resp.code)] = {
      description: resp.code === 201 ? 'Created' : resp.code === 202 ? 'Accepted' : 'OK',
      content: Object.fromEntries(media.map((m) => [m, { schema: ref(resp.shape) }])),
    };
  }
  responses['401'] = { description: 'Unauthorized' };
  const operation: OpenAPIV3.OperationObject & Record<string, unknown> = {
    tags: [tagOf(r)],
    description: op.description,
    operationId: op.operationId,
    // Parameters inline, as upstream serves v3 (kubectl reads fieldValidation support from them).
    parameters: op.queryParameters.filter((p) => p !== 'pretty').map((p) => v3Parameter(model, p)),
    responses,
    'x-cluster-action': op.action,
    'x-cluster-group-version-kind': { group: r.group, version: r.version, kind: r.kind },
  };
  if (op.deprecated) operation.deprecated = true;
  if (op.requestBody) {
    const types = op.requestBody.patch ? [...PATCH_MEDIA_TYPES] : ['application/json', 'application/yaml'];
    operation.requestBody = {
      required: op.requestBody.required,
      content: Object.fromEntries(types.map((m) => [m, { schema: ref(op.requestBody!.shape) }])),
    };
  }
  return operation;
}

function tagOf(r: Resource): string {
  const g = r.group === '' ? 'core' : r.group.split('.')[0];
  return `${g}_${r.version}`;
}

const methodKey = (m: Operation['method']) => m.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';

function v3Document(model: Model, resources: Resource[], title: string, extraShapes: string[] = []): OpenAPIV3.Document {
  const paths: Record<string, OpenAPIV3.PathItemObject & Record<string, unknown>> = {};
  const shapes = new Set<string>();
  for (const r of resources) {
    for (const op of operationsOf(model, r)) {
      const item = (paths[op.path] ??= {});
      item[methodKey(op.method)] = v3Operation(model, r, op);
      item.parameters = [...op.pathParameters, 'pretty'].map((p) => v3Parameter(model, p));
      operationShapes(op).forEach((s) => shapes.add(s));
    }
    shapes.add(r.shape);
    shapes.add(listShapeOf(r));
  }
  const schemas = Object.fromEntries(
    reachableShapes(model, [...shapes, ...extraShapes]).map((name) => [qualifiedName(model, name), projectSchema(model, shapeSchema(model, name), 'v3')]),
  );
  return {
    openapi: '3.0.0',
    info: { title, version: model.platform.gitVersion },
    paths: sortKeys(paths),
    components: {
      schemas: sortKeys(schemas) as Record<string, OpenAPIV3.SchemaObject>,
      securitySchemes: { BearerToken: { type: 'apiKey', name: 'authorization', in: 'header', description: 'Bearer token authentication' } },
    },
    security: [{ BearerToken: [] }],
  };
}

function v3Parameter(model: Model, name: string): OpenAPIV3.ParameterObject {
  const p = model.parameters[name];
  return { name: p.name, in: p.in, description: p.description, ...(p.in === 'path' ? { required: true } : {}), schema: { ...p.schema } };
}

function v2Document(model: Model, resources: Resource[] = model.resources): OpenAPIV2.Document {
  const paths: Record<string, OpenAPIV2.PathItemObject & Record<string, unknown>> = {};
  const shapes = new Set<string>();
  const params = new Set<string>();
  for (const r of resources) {
    for (const op of operationsOf(model, r)) {
      const item = (paths[op.path] ??= {});
      const watch = op.action === 'watch' || op.action === 'watchlist';
      const responses: OpenAPIV2.ResponsesObject = {};
      for (const resp of op.responses) {
        responses[String(resp.code)] = {
          description: resp.code === 201 ? 'Created' : resp.code === 202 ? 'Accepted' : 'OK',
          schema: { $ref: `#/definitions/${qualifiedName(model, resp.shape)}` },
        };
      }
      responses['401'] = { description: 'Unauthorized' };
      const parameters: OpenAPIV2.Parameters = op.queryParameters.filter((p) => p !== 'pretty').map((p) => ({ $ref: `#/parameters/${p}` }));
      if (op.requestBody) {
        parameters.unshift({
          name: 'body', in: 'body', required: op.requestBody.required,
          schema: { $ref: `#/definitions/${qualifiedName(model, op.requestBody.shape)}` },
        });
      }
      const operation: OpenAPIV2.OperationObject & Record<string, unknown> = {
        tags: [tagOf(r)],
        description: op.description,
        operationId: op.operationId,
        consumes: op.requestBody?.patch ? [...PATCH_MEDIA_TYPES] : ['*/*'],
        produces: watch ? [...RESPONSE_MEDIA, ...WATCH_MEDIA] : RESPONSE_MEDIA,
        schemes: ['https'],
        parameters,
        responses,
        'x-cluster-action': op.action,
        'x-cluster-group-version-kind': { group: r.group, version: r.version, kind: r.kind },
      };
      if (op.deprecated) operation.deprecated = true;
      item[methodKey(op.method)] = operation;
      item.parameters = [...op.pathParameters, 'pretty'].map((p) => ({ $ref: `#/parameters/${p}` }));
      [...op.pathParameters, ...op.queryParameters, 'pretty'].forEach((p) => params.add(p));
      operationShapes(op).forEach((s) => shapes.add(s));
    }
    shapes.add(r.shape);
    shapes.add(listShapeOf(r));
  }
  const definitions = Object.fromEntries(
    reachableShapes(model, [...shapes]).map((name) => [qualifiedName(model, name), projectSchema(model, shapeSchema(model, name), 'v2')]),
  );
  return {
    swagger: '2.0',
    info: { title: 'clusterspec', version: model.platform.gitVersion },
    paths: sortKeys(paths),
    definitions: sortKeys(definitions) as OpenAPIV2.DefinitionsObject,
    parameters: Object.fromEntries([...params].sort().map((p) => [p, v2Parameter(model, p)])) as OpenAPIV2.ParametersDefinitionsObject,
    securityDefinitions: { BearerToken: { type: 'apiKey', name: 'authorization', in: 'header', description: 'Bearer token authentication' } },
    security: [{ BearerToken: [] }],
  };
}

function v2Parameter(model: Model, name: string): OpenAPIV2.Parameter {
  const p = model.parameters[name];
  return {
    name: p.name, in: p.in, description: p.description, type: p.schema.type, uniqueItems: true,
    ...(p.in === 'path' ? { required: true } : {}),
  } as OpenAPIV2.Parameter;
}

function sortKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const json = (v: unknown): string => `${JSON.stringify(v, null, 2)}\n`;

export const openapiGenerator: Generator = {
  name: 'openapi',
  generate(model: Model): OutputFile[] {
    const files: OutputFile[] = [];
    for (const { group, versions } of model.groups) {
      for (const version of versions) {
        const resources = model.resources.filter((r) => r.group === group && r.version === version);
        if (!resources.length) continue;
        files.push({ path: `openapi/v3/${gvKey(group, version)}.json`, content: json(v3Document(model, resources, 'clusterspec')) });
        // Swagger 2.0 of one group-version, for consumers of @clusterspec/artifacts (the server serves swagger.json).
        files.push({ path: `openapi/v2/${gvKey(group, version)}.json`, content: json(v2Document(model, resources)) });
      }
    }
    // The combined document also carries the shapes no endpoint returns (the embedded Volume).
    files.push({ path: 'openapi/v3/all.json', content: json(v3Document(model, model.resources, 'clusterspec', [...model.shapes.keys()])) });
    files.push({ path: 'openapi/v2/swagger.json', content: json(v2Document(model)) });
    return files;
  },
};

export type { Dialect };
