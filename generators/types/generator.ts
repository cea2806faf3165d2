// out/types: TypeScript types for every object, list kind and shape, compiled by
// json-schema-to-typescript from one JSON Schema whose definitions are the spec's shapes.
import type { JSONSchema } from 'json-schema-to-typescript';
import { formatPool } from '../format-pool.ts';
import type { Schema } from '../../runtime/schema/types.ts';
import { listShapeOf, type Model } from '../model/model.ts';
import { listSchema } from '../openapi/generator.ts';
import { GENERATED_HEADER, type Generator, type OutputFile } from '../output.ts';

/** Rewrites a spec schema into the JSON Schema json-schema-to-typescript reads. */
function toJsonSchema(node: Schema): JSONSchema {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k.startsWith('x-') || v === undefined) continue;
    if (k === '$ref') out.$ref = (v as string).replace('#/components/schemas/', '#/definitions/');
    else if (k === 'properties') out.properties = Object.fromEntries(Object.entries(v as Record<string, Schema>).map(([p, s]) => [p, toJsonSchema(s)]));
    else if (k === 'items' || k === 'not') out[k] = toJsonSchema(v as Schema);
    else if (k === 'additionalProperties') out[k] = typeof v === 'boolean' ? v : toJsonSchema(v as Schema);
    else if (k === 'allOf' || k === 'anyOf' || k === 'oneOf') out[k] = (v as Schema[]).map(toJsonSchema);
    else if (k === 'default' || k === 'example' || k === 'minItems' || k === 'maxItems' || k === 'format' || k === 'pattern') continue;
    else out[k] = v;
  }
  if (node.$ref && out.description) {
    // A described $ref still names the referenced type.
    out.allOf = [{ $ref: out.$ref }];
    delete out.$ref;
  }
  if (node['x-cluster-int-or-string']) return { ...pick(out, ['description']), tsType: 'number | string' };
  if (node['x-cluster-preserve-unknown-fields'] && !node.properties) {
    return node.type === 'object' || node.type === undefined && node.additionalProperties
      ? { ...pick(out, ['description']), type: 'object', additionalProperties: true }
      : { ...pick(out, ['description']), tsType: node.type === 'array' ? 'unknown[]' : 'unknown' };
  }
  if (node['x-cluster-deprecated']) out.deprecated = true;
  return out as JSONSchema;
}

function pick(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => k in o).map((k) => [k, o[k]]));
}

export const typesGenerator: Generator = {
  name: 'types',
  async generate(model: Model): Promise<OutputFile[]> {
    const definitions: Record<string, JSONSchema> = {};
    for (const [name, shape] of model.shapes) definitions[name] = { ...toJsonSchema(shape.schema), title: name };
    for (const r of model.resources) definitions[listShapeOf(r)] = { ...toJsonSchema(listSchema(r)), title: listShapeOf(r) };
    definitions.AnyResource = {
      title: 'AnyResource',
      description: 'Any object of a resource kind served by the API.',
      anyOf: model.resources.map((r) => ({ $ref: `#/definitions/${r.shape}` })),
    };
    // The root names every definition, so that each one is emitted (and can be looked up by name).
    const names = Object.keys(definitions).sort();
    const root: JSONSchema = {
      title: 'Shapes',
      description: 'Every shape of the API by its name.',
      type: 'object',
      required: names,
      properties: Object.fromEntries(names.map((n) => [n, { $ref: `#/definitions/${n}` }])),
      definitions,
    };
    const kinds = model.resources.map((r) => `  '${r.group ? `${r.group}/` : ''}${r.version}/${r.kind}': ${r.shape};`).join('\n');
    // Compiled and formatted in the format worker: json-schema-to-typescript loads in ~0.3 s, and
    // the main thread generates the other artifacts meanwhile.
    const content = await formatPool().compileTypes({
      schema: root,
      name: 'Shapes',
      options: {
        additionalProperties: false,
        bannerComment: GENERATED_HEADER,
        declareExternallyReferenced: true,
        unreachableDefinitions: false,
        format: false,
        strictIndexSignatures: false,
        ignoreMinAndMaxItems: true,
        $refOptions: { resolve: { http: false, file: false } },
      },
      suffix: `
/** Each resource kind by its apiVersion and kind. */
export interface ResourceKinds {
${kinds}
}
`,
    });
    return [{ path: 'types/index.ts', content, preformatted: true }];
  },
};
