// Turns a spec schema (with $refs, rules and spec-only extensions) into a structural
// openAPIV3Schema for a CRD body: refs inlined, every node typed, rules lowered to CEL.
import type { RuleSpec, Schema, ValidationRule } from '../../runtime/schema/types.ts';
import type { Model } from '../model/model.ts';
import { lowerRule } from '../rules.ts';
import { compileSchemaRules } from '../../runtime/crd/cel-rules.ts';
import { PER_CRD_COST_LIMIT } from '../../runtime/cel/index.ts';

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

/** Why a rule the validators check is not in the CRD body (the record's `why`). */
export type LeftOutWhy = 'inexpressible' | 'cost' | 'compile' | 'structural' | 'recursive' | 'metadata' | 'note';

/** Where a rule sits in spec/: its shape, the JSON pointer of its node, and which list holds it. */
export interface RuleOrigin {
  shape: string;
  pointer: string;
  /** `x-cluster-rules[i]`, `x-cluster-validations[i]`, `x-cluster-immutable`, or `schema` (the node itself). */
  source: 'x-cluster-rules' | 'x-cluster-validations' | 'x-cluster-immutable' | 'schema';
  index?: number;
}

export interface UnloweredRule {
  path: string;
  rule: RuleSpec;
  reason: string;
  why: LeftOutWhy;
  /** Undefined only for a rule written on the root $ref (none are). */
  origin?: RuleOrigin;
}

export interface StructuralResult {
  schema: Schema;
  unlowered: UnloweredRule[];
}

/** The name syntaxes of a resource (spec/README.md); a custom resource name is always checked as a DNS-1123 subdomain. */
export type NameSyntax = 'dns1123Subdomain' | 'dns1123Label' | 'pathSegment';

const DNS1123_LABEL_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';

export function structuralSchema(model: Model, rootShape: string, nameSyntax: NameSyntax = 'dns1123Subdomain'): StructuralResult {
  const unlowered: UnloweredRule[] = [];
  // Each CEL rule of the body remembers the spec rule it came from, so a rule dropped later is recorded by origin.
  const origins = new Map<ValidationRule, RuleOrigin>();
  const inline = (node: Schema, path: string, stack: string[], loc: Loc, partial = false): Schema => {
    if (node.$ref) {
      const name = node.$ref.replace('#/components/schemas/', '');
      const { $ref: _ref, ...siblings } = node;
      if (stack.includes(name)) {
        // A recursive shape (JSONSchemaProps) cannot be inlined: keep the value, untyped below, and record that nothing below is checked.
        if (loc.shape) unlowered.push({ path: path || '.', rule: { rule: 'schema', shape: name }, why: 'recursive', reason: `the recursive shape ${name} is kept untyped (x-cluster-preserve-unknown-fields): nothing below is checked`, origin: { shape: loc.shape, pointer: loc.pointer, source: 'schema' } });
        return { type: 'object', 'x-cluster-preserve-unknown-fields': true, ...(siblings.description ? { description: siblings.description } : {}) };
      }
      const target = inline(model.shapes.get(name)!.schema, path, [...stack, name], { shape: name, pointer: '' });
      return Object.keys(siblings).length ? mergeSiblings(target, inline(siblings, path, stack, loc, true)) : target;
    }
    const out: Schema = {};
    const at = (suffix: string): Loc => ({ shape: loc.shape, pointer: `${loc.pointer}/${suffix}` });
    for (const [key, value] of Object.entries(node)) {
      if (!CRD_KEYWORDS.has(key) || value === undefined) continue;
      if (key === 'properties') {
        out.properties = Object.fromEntries(
          Object.entries(value as Record<string, Schema>).map(([k, v]) => [k, inline(v, `${path}.${k}`, stack, at(`properties/${pointerEscape(k)}`))]),
        );
      } else if (key === 'items') out.items = inline(value as Schema, `${path}[*]`, stack, at('items'));
      else if (key === 'additionalProperties') out.additionalProperties = typeof value === 'boolean' ? value : inline(value as Schema, `${path}[*]`, stack, at('additionalProperties'));
      else if (key === 'allOf' || key === 'anyOf' || key === 'oneOf') out[key] = (value as Schema[]).map((s, i) => inline(s, path, stack, at(`${key}/${i}`)));
      else if (key === 'not') out.not = inline(value as Schema, path, stack, at('not'));
      else (out as Record<string, unknown>)[key] = value;
    }
    // checkedByList: the values a write may hold depend on the old list (its list rule is left out), so no enum fixes them
    if ((node['x-cluster-rules'] ?? []).some((r) => r.rule === 'checkedByList')) delete out.enum;
    if (out.properties && out.additionalProperties !== undefined) {
      // A structural schema takes one of the two: keep the map, list what the named properties checked.
      for (const [name, prop] of Object.entries(out.properties)) {
        for (const v of prop['x-cluster-validations'] ?? []) {
          unlowered.push({ path: `${path}.${name}`, rule: { rule: 'cel', text: v.rule }, why: 'structural', reason: 'properties and additionalProperties are mutually exclusive in a structural schema', origin: origins.get(v) });
        }
      }
      delete out.properties;
    }
    // A nonEmpty rule that also runs when its field is absent: a CEL rule on the field never runs then, `required` does.
    if (out.properties) {
      const required = new Set(out.required ?? []);
      for (const [name, prop] of Object.entries(node.properties ?? {})) if (reportsAbsenceDeep(model, prop)) required.add(name);
      // upstream accepts these absent, as their zero value (absentAsZero): a CRD requiring them would refuse what the validator takes
      for (const [name, prop] of Object.entries(node.properties ?? {})) if ((prop['x-cluster-rules'] ?? []).some((r) => r.rule === 'absentAsZero')) required.delete(name);
      if (required.size) out.required = [...required];
      else delete out.required;
    }
    if (out.format && !CRD_FORMATS.has(out.format)) {
      const quantity = out.format === 'quantity';
      delete out.format;
      if (quantity) {
        delete out.type;
        Object.assign(out, quantitySchema());
      }
    }
    const validations: ValidationRule[] = (node['x-cluster-validations'] ?? []).map((v, index) => {
      const crdRule = forCrd(v);
      if (loc.shape) origins.set(crdRule, { shape: loc.shape, pointer: loc.pointer, source: 'x-cluster-validations', index });
      return crdRule;
    });
    const rules: Array<[RuleSpec, RuleOrigin | undefined]> = (node['x-cluster-rules'] ?? []).map((rule, index) =>
      [rule, loc.shape ? { shape: loc.shape, pointer: loc.pointer, source: 'x-cluster-rules', index } : undefined]);
    if (node['x-cluster-immutable']) rules.push([{ rule: 'immutable' }, loc.shape ? { shape: loc.shape, pointer: loc.pointer, source: 'x-cluster-immutable' } : undefined]);
    for (const [rule, origin] of rules) {
      const lowered = lowerRule(rule, node);
      if ('cel' in lowered) {
        validations.push(lowered.cel);
        if (origin) origins.set(lowered.cel, origin);
      } else unlowered.push({ path: path || '.', rule, reason: lowered.reason, why: rule.rule === 'note' ? 'note' : 'inexpressible', origin });
    }
    if (validations.length) out['x-cluster-validations'] = validations;
    if (!partial && !out.type && !out['x-cluster-int-or-string'] && !out['x-cluster-preserve-unknown-fields'] && !out.allOf && !out.anyOf) {
      if (out.properties || out.additionalProperties) out.type = 'object';
      else out['x-cluster-preserve-unknown-fields'] = true;
    }
    return out;
  };
  const root = inline({ $ref: `#/components/schemas/${rootShape}` }, '', [], { pointer: '' });
  // Root metadata may only constrain name and generateName (api-conventions 9.4).
  if (root.properties?.metadata) {
    // the rules the kind puts on its metadata (finalizer names) go with it: recorded as left out
    for (const v of root.properties.metadata['x-cluster-validations'] ?? []) {
      unlowered.push({ path: '.metadata', rule: { rule: 'cel', text: v.rule }, why: 'metadata', reason: 'a CRD may constrain only metadata.name and generateName', origin: origins.get(v) });
    }
    root.properties.metadata = { type: 'object' };
    // A DNS-1123 label is a subdomain without dots and at most 63 characters: a schema on metadata.name says so.
    if (nameSyntax === 'dns1123Label') root.properties.metadata.properties = { name: { type: 'string', maxLength: 63, pattern: DNS1123_LABEL_PATTERN } };
    else if (nameSyntax !== 'dns1123Subdomain') unlowered.push({ path: '.metadata.name', rule: { rule: 'nameSyntax', syntax: nameSyntax }, why: 'metadata', reason: `a custom resource name is a DNS-1123 subdomain; ${nameSyntax} names cannot be expressed` });
    // ...so a rule can no longer point its fieldPath into metadata: it reports at the root instead.
    for (const v of root['x-cluster-validations'] ?? []) if (v.fieldPath?.startsWith('.metadata')) delete v.fieldPath;
  }
  keepRulesACrdAccepts(root, unlowered, origins);
  return { schema: root, unlowered };
}

/** A position inside a spec shape (none for the synthetic root reference). */
interface Loc {
  shape?: string;
  pointer: string;
}

const pointerEscape = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Whether a property (its own rules, or those of the shapes it references) has a nonEmpty that runs when it is absent. */
function reportsAbsenceDeep(model: Model, prop: Schema, seen: Set<string> = new Set()): boolean {
  if ((prop['x-cluster-rules'] ?? []).some((r) => r.rule === 'nonEmpty' && r.whenAbsent !== false)) return true;
  if (!prop.$ref) return false;
  const name = prop.$ref.replace('#/components/schemas/', '');
  if (seen.has(name)) return false;
  const target = model.shapes.get(name);
  return !!target && reportsAbsenceDeep(model, target.schema, new Set([...seen, name]));
}

/**
 * Compiles the CEL rules of the structural schema as the server compiles a CRD's rules (each rule's
 * cost times how often it can run, and the total, against upstream's limits). A built-in rule over
 * unbounded strings, lists or maps can be too expensive for a CRD: it is dropped from the body and
 * listed, most expensive first, until the rest fits, so the CRD installs and nothing is lost silently.
 */
function keepRulesACrdAccepts(root: Schema, unlowered: UnloweredRule[], origins: Map<ValidationRule, RuleOrigin>): void {
  const prefix = 'schema';
  const first = compileSchemaRules(root, prefix);
  if (!first.errors.length) return;
  const named = new Set(first.errors.map((e) => e.field).filter((f) => f.endsWith('.rule') && !f.includes('contributed')));
  const perRule = new Set(first.errors.filter((e) => !e.message.startsWith('Forbidden: contributed')).map((e) => e.field));
  const drop = new Map<string, string>();
  for (const f of named) if (perRule.has(f)) drop.set(f, first.errors.find((e) => e.field === f)!.message);
  let total = first.rules.filter((r) => !drop.has(r.path)).reduce((a, r) => a + r.cost, 0);
  for (const r of [...first.rules].sort((a, b) => b.cost - a.cost)) {
    if (total <= PER_CRD_COST_LIMIT) break;
    if (drop.has(r.path)) continue;
    drop.set(r.path, `its estimated cost (${r.cost} for up to ${r.cardinality} evaluations) puts the CRD over the total cost limit`);
    total -= r.cost;
  }
  // Remove from the highest index down so the remaining indexes stay valid.
  for (const [field, reason] of [...drop].sort(([a], [b]) => (a < b ? 1 : -1))) {
    const located = locateRule(root, field.slice(prefix.length));
    if (!located) continue;
    const [node, index, path] = located;
    const rules = node['x-cluster-validations']!;
    // A CRD's rules see only metadata.name and generateName: a rule reading other metadata cannot compile there.
    const why: LeftOutWhy = /cost/.test(reason) ? 'cost' : /\bself\.metadata\.(?!name\b|generateName\b)/.test(rules[index].rule) ? 'metadata' : 'compile';
    unlowered.push({ path, rule: { rule: 'cel', text: rules[index].rule }, why, reason: `not accepted in a CRD: ${reason}`, origin: origins.get(rules[index]) });
    rules.splice(index, 1);
    if (!rules.length) delete node['x-cluster-validations'];
  }
}

/** Finds `.properties[a].items.x-cluster-validations[2].rule` in a structural schema. */
function locateRule(root: Schema, field: string): [Schema, number, string] | undefined {
  let node: Schema | undefined = root;
  let path = '';
  const re = /\.properties\[([^\]]+)\]|\.items|\.additionalProperties|\.x-cluster-validations\[(\d+)\]\.rule$/y;
  let m: RegExpExecArray | null;
  while (node && (m = re.exec(field))) {
    if (m[1] !== undefined) {
      node = node.properties?.[m[1]];
      path += `.${m[1]}`;
    } else if (m[2] !== undefined) return [node, Number(m[2]), path || '.'];
    else if (m[0] === '.items') {
      node = node.items;
      path += '[*]';
    } else {
      node = typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined;
      path += '[*]';
    }
  }
  return undefined;
}


const CRD_REASONS = new Set(['FieldValueInvalid', 'FieldValueForbidden', 'FieldValueRequired', 'FieldValueDuplicate']);

/** A built-in rule as a CRD takes it: CRDs know four reasons and need a non-empty message. */
function forCrd(rule: ValidationRule): ValidationRule {
  const out: ValidationRule = { ...rule };
  if (out.reason !== undefined && !CRD_REASONS.has(out.reason)) out.reason = 'FieldValueInvalid';
  if (out.message === '') delete out.message;
  return out;
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
