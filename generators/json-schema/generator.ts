// out/jsonschema and out/jsonschema-strict: one self-contained JSON Schema (draft-07) per kind, in the
// layout kubeconform and flux-schema read (`<group>/<kind>_<version>.json`, kind lowercase; the core
// group has no folder, as kubeconform's `{{.Group}}/` expands to nothing for it). The strict variant
// rejects unknown fields (additionalProperties: false on every object that does not keep unknown fields).
import type { Model, Resource } from '../model/model.ts';
import type { Generator, OutputFile } from '../output.ts';
import { reachableShapes, shapeSchema } from '../openapi/generator.ts';
import { projectSchema } from '../openapi/project-schema.ts';
import { qualifiedName } from '../openapi/qualified-names.ts';

type Node = Record<string, unknown>;

const V3_REF = '#/components/schemas/';
const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
/** Extensions kept in the published schema: the rest (sources, rule annotations) only matter to our own tools. */
const KEPT_EXTENSIONS = new Set(['x-cluster-group-version-kind']);

/** A kind's schema file inside a schema folder, as kubeconform's `{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}` names it (core kinds at the top). */
export function jsonSchemaFile(r: Pick<Resource, 'group' | 'kind' | 'version'>): string {
  const file = `${r.kind.toLowerCase()}_${r.version}.json`;
  return r.group ? `${r.group}/${file}` : file;
}

export function jsonSchemaPath(r: Pick<Resource, 'group' | 'kind' | 'version'>, strict: boolean): string {
  return `${strict ? 'jsonschema-strict' : 'jsonschema'}/${jsonSchemaFile(r)}`;
}

/** An OpenAPI 3.0 schema (as published in out/openapi/v3) rewritten as JSON Schema draft-07. */
function toJsonSchema(node: Node, strict: boolean): Node {
  const out: Node = {};
  for (const [key, value] of Object.entries(node)) {
    switch (key) {
      case '$ref':
        out.$ref = `#/definitions/${(value as string).slice(V3_REF.length)}`;
        break;
      case 'properties':
        out.properties = Object.fromEntries(Object.entries(value as Record<string, Node>).map(([k, v]) => [k, toJsonSchema(v, strict)]));
        break;
      case 'items':
      case 'not':
        out[key] = toJsonSchema(value as Node, strict);
        break;
      case 'additionalProperties':
        out[key] = typeof value === 'boolean' ? value : toJsonSchema(value as Node, strict);
        break;
      case 'allOf':
      case 'anyOf':
      case 'oneOf':
        out[key] = (value as Node[]).map((v) => toJsonSchema(v, strict));
        break;
      case 'nullable':
      case 'deprecated':
        break;
      default:
        if (!key.startsWith('x-cluster-') || KEPT_EXTENSIONS.has(key)) out[key] = value;
    }
  }
  if (Array.isArray(out.required) && node.properties && typeof node.properties === 'object') {
    // upstream accepts these absent, as their zero value (the absentAsZero rule): a schema requiring them would refuse what the server takes
    const props = node.properties as Record<string, Node>;
    const required = (out.required as string[]).filter((name) => !absentAsZero(props[name]));
    if (required.length) out.required = required;
    else delete out.required;
  }
  if (node.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  if (node['x-cluster-int-or-string'] === true) {
    delete out.type;
    out.oneOf = [{ type: 'string' }, { type: 'integer' }];
  }
  const keepsUnknown = node['x-cluster-preserve-unknown-fields'] === true;
  if (strict && !keepsUnknown && out.additionalProperties === undefined && (out.type === 'object' || out.properties)) {
    out.additionalProperties = false;
  }
  return out;
}

function absentAsZero(property: Node | undefined): boolean {
  const rules = property?.['x-cluster-rules'];
  return Array.isArray(rules) && rules.some((r) => typeof r === 'object' && r !== null && (r as Node).rule === 'absentAsZero');
}

function kindDocument(model: Model, r: Resource, strict: boolean): Node {
  const rootName = qualifiedName(model, r.shape);
  const root = toJsonSchema(projectSchema(model, shapeSchema(model, r.shape), 'v3') as Node, strict);
  const properties = { ...(root.properties as Record<string, Node>) };
  const apiVersion = r.group ? `${r.group}/${r.version}` : r.version;
  // The kind and apiVersion a document must carry to be this kind (kubeconform picks the file by them).
  properties.apiVersion = { ...properties.apiVersion, enum: [apiVersion] };
  properties.kind = { ...properties.kind, enum: [r.kind] };
  const definitions: Record<string, Node> = {};
  for (const name of reachableShapes(model, [r.shape])) {
    const qualified = qualifiedName(model, name);
    if (qualified === rootName) continue;
    definitions[qualified] = toJsonSchema(projectSchema(model, shapeSchema(model, name), 'v3') as Node, strict);
  }
  const referencesRoot = JSON.stringify(definitions).includes(`"#/definitions/${rootName}"`);
  if (referencesRoot) definitions[rootName] = root;
  return { $schema: DRAFT_07, ...root, properties, definitions: sortKeys(definitions) };
}

function sortKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export const jsonSchemaGenerator: Generator = {
  name: 'json-schema',
  generate(model: Model): OutputFile[] {
    return model.resources.flatMap((r) =>
      [false, true].map((strict) => ({ path: jsonSchemaPath(r, strict), content: `${JSON.stringify(kindDocument(model, r, strict), null, 2)}\n` })),
    );
  },
};
