// Empty maps and lists as upstream serializes built-in objects: Go's encoding/json leaves out a map
// or slice field tagged `omitempty` when it has no entries, so `metadata.annotations: {}`, `labels: {}`
// or a ConfigMap's `data: {}` never reach storage, webhooks or answers. Structs are never left out
// (omitempty does not apply to them). Of custom resources only metadata is (upstream stores them
// unstructured, but converts their metadata through ObjectMeta).
//
// Which fields are omitempty: upstream's Go types tag nearly every optional map and slice so; the
// fields they declare without it are the ones its OpenAPI marks required (spec `required` here) and
// the few optional ones listed in KEPT_WHEN_EMPTY. A field the spec requires is always kept, so that
// an object read back passes validation again.

import type { Schema } from '../schema/types.ts';
import { isObj, type Obj } from '../api/object.ts';

/**
 * Optional map and list fields that upstream's Go types declare without omitempty (so `[]` stays):
 * shape name → field names.
 */
const KEPT_WHEN_EMPTY: Record<string, readonly string[]> = {
  // storage/v1 CSINodeDriver.TopologyKeys `json:"topologyKeys"`
  CSINodeDriver: ['topologyKeys'],
  // apiextensions/v1 CustomResourceDefinitionStatus.Conditions `json:"conditions"`, .StoredVersions `json:"storedVersions"`
  CustomResourceDefinitionStatus: ['conditions', 'storedVersions'],
  // core/v1 ProjectedVolumeSource.Sources `json:"sources"`
  ProjectedVolumeSource: ['sources'],
};

/** Union shapes whose object form upstream marshals as a JSONSchemaProps (and array form as a list of them). */
const SCHEMA_UNIONS = new Set(['JSONSchemaPropsOrBool', 'JSONSchemaPropsOrArray', 'JSONSchemaPropsOrStringArray']);

const REF_PREFIX = '#/components/schemas/';

interface Resolved {
  schema: Schema;
  /** The named shape the schema is (undefined for an inline schema). */
  name: string | undefined;
}

function resolve(schema: Schema, shapes: Record<string, Schema>): Resolved {
  let s = schema;
  let name: string | undefined;
  for (let i = 0; i < 16 && s.$ref !== undefined; i++) {
    name = s.$ref.startsWith(REF_PREFIX) ? s.$ref.slice(REF_PREFIX.length) : s.$ref;
    const next = shapes[name];
    if (next === undefined) break;
    s = next;
  }
  return { schema: s, name };
}

function isEmptyCollection(v: unknown): boolean {
  if (Array.isArray(v)) return v.length === 0;
  if (!isObj(v)) return false;
  for (const k in v) if (Object.prototype.hasOwnProperty.call(v, k)) return false;
  return true;
}

/** Nothing under a value of this schema can be left out: no properties, items or map values to look into (strings, numbers, ...). */
function isLeafSchema(s: Schema): boolean {
  return s.properties === undefined && s.items === undefined && !isObj(s.additionalProperties) && s.$ref === undefined;
}

/** A map (`additionalProperties` without properties) or a list: what omitempty can leave out. */
function isMapOrList(s: Schema): boolean {
  return s.type === 'array' || (s.type === 'object' && s.properties === undefined && isObj(s.additionalProperties));
}

/**
 * Removes, in place, the empty omitempty maps and lists of `obj`, an object of shape `kind`. Of a
 * custom resource only metadata is typed upstream (its ObjectMeta goes through the Go type and back).
 */
export function dropEmptyOmitted(obj: Obj, kind: string, shapes: Record<string, Schema>, customResource = false): void {
  if (customResource) {
    const om = shapes.ObjectMeta;
    if (om && isObj(obj.metadata)) walk(obj.metadata, { schema: om, name: 'ObjectMeta' }, shapes);
    return;
  }
  const root = shapes[kind];
  if (root) walk(obj, { schema: root, name: kind }, shapes);
}

/** Depth-first over the typed parts of `value`, with a work list (CRD schemas may nest deeper than the call stack goes). */
function walk(value: unknown, at: Resolved, shapes: Record<string, Schema>): void {
  const work: [unknown, Resolved][] = [[value, at]];
  for (let next = work.pop(); next !== undefined; next = work.pop()) {
    const [v, { schema, name }] = next;
    if (name !== undefined && SCHEMA_UNIONS.has(name)) {
      const props = shapes.JSONSchemaProps;
      if (!props) continue;
      const asProps: Resolved = { schema: props, name: 'JSONSchemaProps' };
      if (isObj(v)) work.push([v, asProps]);
      else if (Array.isArray(v) && name === 'JSONSchemaPropsOrArray') for (const item of v) work.push([item, asProps]);
      continue;
    }
    if (Array.isArray(v)) {
      if (schema.items) {
        const items = resolve(schema.items, shapes);
        if (isLeafSchema(items.schema) && (items.name === undefined || !SCHEMA_UNIONS.has(items.name))) continue;
        for (const item of v) if (typeof item === 'object' && item !== null) work.push([item, items]);
      }
      continue;
    }
    if (!isObj(v)) continue;
    if (schema.properties) {
      const required = schema.required ?? [];
      const kept = name !== undefined ? KEPT_WHEN_EMPTY[name] : undefined;
      for (const [key, propSchema] of Object.entries(schema.properties)) {
        const field = v[key];
        if (field === undefined || field === null) continue;
        if (typeof field !== 'object') continue;
        const prop = resolve(propSchema, shapes);
        if (isMapOrList(prop.schema) && !required.includes(key) && !kept?.includes(key) && isEmptyCollection(field)) {
          delete v[key];
          continue;
        }
        work.push([field, prop]);
      }
      continue;
    }
    if (isObj(schema.additionalProperties)) {
      const values = resolve(schema.additionalProperties, shapes);
      // a map of strings (a ConfigMap's data: up to 1 MiB of keys) has nothing to leave out below it
      if (isLeafSchema(values.schema) && (values.name === undefined || !SCHEMA_UNIONS.has(values.name))) continue;
      for (const k in v) {
        if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
        const field = v[k];
        if (typeof field === 'object' && field !== null) work.push([field, values]);
      }
    }
  }
}
