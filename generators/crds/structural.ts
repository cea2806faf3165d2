// Turns a spec schema (with $refs, rules and spec-only extensions) into a structural
// openAPIV3Schema for a CRD body: refs inlined, every node typed, rules lowered to CEL.
import type { RuleSpec, Schema, ValidationRule } from '../../runtime/schema/types.ts';
import type { Model } from '../model/model.ts';
import { lowerRule } from '../rules.ts';
import { celRuleEngine } from '../../runtime/cel/index.ts';

/** Keywords a CRD's JSONSchemaProps accepts (document 2 section 2.8). */
const CRD_KEYWORDS = new Set([
  'type', 'format', 'description', 'title', 'enum', 'default', 'nullable', 'required', 'properties',
  'additionalProperties', 'items', 'allOf', 'anyOf', 'oneOf', 'not', 'minimum', 'maximum',
  'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'pattern', 'minItems',
  'maxItems', 'uniqueItems', 'minProperties', 'maxProperties', 'example',
  'x-cluster-list-type', 'x-cluster-list-map-keys', 'x-cluster-map-type', 'x-cluster-int-or-string',
  'x-cluster-preserve-unknown-fields', 'x-cluster-embedded-resource', 'x-cluster-validations',
]);

/** The 24 formats of document 2 section 2.8 plus the numeric widths a CRD keeps. */
const CRD_FORMATS = new Set([
  'bsonobjectid', 'uri', 'email', 'hostname', 'ipv4', 'ipv6', 'cidr', 'mac', 'uuid', 'uuid3', 'uuid4', 'uuid5',
  'isbn', 'isbn10', 'isbn13', 'creditcard', 'ssn', 'hexcolor', 'rgbcolor', 'byte', 'password', 'date',
  'duration', 'datetime', 'date-time', 'int32', 'int64', 'double', 'float',
]);

const QUANTITY_PATTERN = '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

export interface UnloweredRule {
  path: string;
  rule: RuleSpec;
  reason: string;
}

export interface StructuralResult {
  schema: Schema;
  unlowered: UnloweredRule[];
}

export function structuralSchema(model: Model, rootShape: string): StructuralResult {
  const unlowered: UnloweredRule[] = [];
  const inline = (node: Schema, path: string, stack: string[], partial = false): Schema => {
    if (node.$ref) {
      const name = node.$ref.replace('#/components/schemas/', '');
      const { $ref: _ref, ...siblings } = node;
      if (stack.includes(name)) {
        // A recursive shape (JSONSchemaProps) cannot be inlined: keep the value, untyped below.
        return { type: 'object', 'x-cluster-preserve-unknown-fields': true, ...(siblings.description ? { description: siblings.description } : {}) };
      }
      const target = inline(model.shapes.get(name)!.schema, path, [...stack, name]);
      return Object.keys(siblings).length ? mergeSiblings(target, inline(siblings, path, stack, true)) : target;
    }
    const out: Schema = {};
    for (const [key, value] of Object.entries(node)) {
      if (!CRD_KEYWORDS.has(key) || value === undefined) continue;
      if (key === 'properties') {
        out.properties = Object.fromEntries(
          Object.entries(value as Record<string, Schema>).map(([k, v]) => [k, inline(v, `${path}.${k}`, stack)]),
        );
      } else if (key === 'items') out.items = inline(value as Schema, `${path}[*]`, stack);
      else if (key === 'additionalProperties') out.additionalProperties = typeof value === 'boolean' ? value : inline(value as Schema, `${path}[*]`, stack);
      else if (key === 'allOf' || key === 'anyOf' || key === 'oneOf') out[key] = (value as Schema[]).map((s) => inline(s, path, stack));
      else if (key === 'not') out.not = inline(value as Schema, path, stack);
      else (out as Record<string, unknown>)[key] = value;
    }
    if (out.format && !CRD_FORMATS.has(out.format)) {
      const quantity = out.format === 'quantity';
      delete out.format;
      if (quantity) {
        delete out.type;
        Object.assign(out, quantitySchema());
      }
    }
    const validations: ValidationRule[] = [...(node['x-cluster-validations'] ?? [])];
    const rules: RuleSpec[] = [...(node['x-cluster-rules'] ?? [])];
    if (node['x-cluster-immutable']) rules.push({ rule: 'immutable' });
    for (const rule of rules) {
      const lowered = lowerRule(rule, node);
      if ('cel' in lowered) validations.push(lowered.cel);
      else unlowered.push({ path: path || '.', rule, reason: lowered.reason });
    }
    if (validations.length) out['x-cluster-validations'] = validations;
    if (!partial && !out.type && !out['x-cluster-int-or-string'] && !out['x-cluster-preserve-unknown-fields'] && !out.allOf && !out.anyOf) {
      if (out.properties || out.additionalProperties) out.type = 'object';
      else out['x-cluster-preserve-unknown-fields'] = true;
    }
    return out;
  };
  const root = inline({ $ref: `#/components/schemas/${rootShape}` }, '', []);
  // Root metadata may only constrain name and generateName (api-conventions 9.4).
  if (root.properties?.metadata) root.properties.metadata = { type: 'object' };
  keepRulesACrdAccepts(root, '', unlowered);
  return { schema: root, unlowered };
}

/**
 * Compiles every CEL rule of the structural schema as the server compiles a CRD's rules (with the
 * CRD cost budget). A built-in rule over unbounded strings or lists can be too expensive for a CRD:
 * it is dropped from the body and listed, so the CRD installs and nothing is lost silently.
 */
function keepRulesACrdAccepts(node: Schema, path: string, unlowered: UnloweredRule[]): void {
  const rules = node['x-cluster-validations'];
  if (rules) {
    const kept = rules.filter((rule) => {
      try {
        celRuleEngine.compileRule(rule, node, {});
        return true;
      } catch (err) {
        unlowered.push({ path: path || '.', rule: { rule: 'cel', text: rule.rule }, reason: `not accepted in a CRD: ${(err as Error).message}` });
        return false;
      }
    });
    if (kept.length) node['x-cluster-validations'] = kept;
    else delete node['x-cluster-validations'];
  }
  for (const [k, v] of Object.entries(node.properties ?? {})) keepRulesACrdAccepts(v, `${path}.${k}`, unlowered);
  if (node.items) keepRulesACrdAccepts(node.items, `${path}[*]`, unlowered);
  if (node.additionalProperties && typeof node.additionalProperties === 'object') keepRulesACrdAccepts(node.additionalProperties, `${path}[*]`, unlowered);
}

function mergeSiblings(target: Schema, siblings: Schema): Schema {
  const merged: Schema = { ...target, ...siblings };
  const validations = [...(target['x-cluster-validations'] ?? []), ...(siblings['x-cluster-validations'] ?? [])];
  if (validations.length) merged['x-cluster-validations'] = validations;
  return merged;
}

/** A Quantity in a CRD: integer or string, as upstream's controller-gen writes it. */
function quantitySchema(): Schema {
  return { anyOf: [{ type: 'integer' }, { type: 'string' }], pattern: QUANTITY_PATTERN, 'x-cluster-int-or-string': true };
}
