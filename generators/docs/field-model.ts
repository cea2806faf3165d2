// The field tree of a kind as data: every field with its full path, its schema with `$ref`s
// resolved (the referring node's own keys win, its rules add to the shape's), and its children.
// A shape already being expanded higher up the same branch is not expanded again (recursive
// schemas such as JSONSchemaProps): the node points at that ancestor instead.
import type { Schema } from '../../runtime/schema/types.ts';
import type { Model } from '../model/model.ts';

export interface FieldNode {
  /** JSON field name. */
  name: string;
  /** Path from the object root, upstream's form: `spec.csi.volumeHandle`, `spec.accessModes[*]`. */
  path: string;
  /** The field's schema, `$ref` resolved. */
  schema: Schema;
  /** The element schema of a list or map field (after every `[*]`), `$ref` resolved; the schema itself otherwise. */
  element: Schema;
  /** `[*]` once per list or map level between the field and its element. */
  elementSuffix: string;
  /** Named shape of the field, or of its element for a list or map. */
  shape?: string;
  required: boolean;
  children: FieldNode[];
  /** Path of the ancestor that already expands the same shape (children left out here). */
  recursesTo?: string;
}

const REF_PREFIX = '#/components/schemas/';

export const shapeNameOf = (ref: string): string => (ref.startsWith(REF_PREFIX) ? ref.slice(REF_PREFIX.length) : ref.split('/').pop() ?? ref);

/** Resolves a `$ref` node against the model's shapes; keys beside the `$ref` win, rule lists add up. */
export function resolveNode(model: Model, node: Schema): { schema: Schema; shape?: string } {
  if (!node.$ref) return { schema: node };
  const name = shapeNameOf(node.$ref);
  const target = model.shapes.get(name)?.schema ?? {};
  const inner = resolveNode(model, target);
  const { $ref: _ref, ...own } = node;
  const merged: Schema = { ...inner.schema, ...own };
  const rules = [...(inner.schema['x-cluster-rules'] ?? []), ...(own['x-cluster-rules'] ?? [])];
  const validations = [...(inner.schema['x-cluster-validations'] ?? []), ...(own['x-cluster-validations'] ?? [])];
  if (rules.length) merged['x-cluster-rules'] = rules;
  if (validations.length) merged['x-cluster-validations'] = validations;
  return { schema: merged, shape: name };
}

/** Follows list items and map values down to the element: `[]map[string]Foo` gives Foo and `[*][*]`. */
export function elementOf(model: Model, schema: Schema, shape?: string): { element: Schema; suffix: string; shape?: string } {
  let element = schema;
  let suffix = '';
  let name = shape;
  for (;;) {
    const next = element.type === 'array' ? element.items : typeof element.additionalProperties === 'object' && !element.properties ? element.additionalProperties : undefined;
    if (!next) return { element, suffix, shape: name };
    const r = resolveNode(model, next);
    element = r.schema;
    name = r.shape;
    suffix += '[*]';
  }
}

function buildChildren(model: Model, element: Schema, base: string, expanding: Map<string, string>): FieldNode[] {
  const required = new Set(element.required ?? []);
  return Object.entries(element.properties ?? {}).map(([name, raw]) => {
    const path = base ? `${base}.${name}` : name;
    const { schema, shape: ownShape } = resolveNode(model, raw);
    const { element: el, suffix, shape } = elementOf(model, schema, ownShape);
    const node: FieldNode = { name, path, schema, element: el, elementSuffix: suffix, shape, required: required.has(name), children: [] };
    const ancestor = shape ? expanding.get(shape) : undefined;
    if (ancestor !== undefined) {
      if (el.properties) node.recursesTo = ancestor;
      return node;
    }
    if (shape) expanding.set(shape, path);
    node.children = buildChildren(model, el, path + suffix, expanding);
    if (shape) expanding.delete(shape);
    return node;
  });
}

/** The top-level fields of a kind (apiVersion, kind, metadata, spec, status, ...), each with its subtree. */
export function fieldTree(model: Model, shapeName: string): FieldNode[] {
  const root = model.shapes.get(shapeName)?.schema ?? {};
  return buildChildren(model, resolveNode(model, root).schema, '', new Map([[shapeName, '']]));
}

/** Every node of a tree, depth first, in document order. */
export function* walkFields(nodes: FieldNode[]): Generator<FieldNode> {
  for (const n of nodes) {
    yield n;
    yield* walkFields(n.children);
  }
}
