// The schema checks a CRD write runs on every spec.versions[*].schema.openAPIV3Schema
// (api-conventions 9.4): the JSONSchemaProps rules of apiextensions validation, the structural
// schema invariants and completeness of apiserver/schema, and the defaults check. Every problem is
// returned as an upstream-shaped field error whose path starts at the schema's own path inside the
// CRD (`spec.versions[0].schema.openAPIV3Schema.properties[spec].type`).
import { compileSchemaToClosures, SchemaCompileError } from '../schema/compile.ts';
import { compilePattern } from '../schema/pattern.ts';
import { fieldErr, NIL_COLLECTION } from '../schema/errors.ts';
import type { FieldError, Schema } from '../schema/types.ts';
import { crdRuleEngine } from './cel-engine.ts';
import { jsonRoundTrip } from '../json/clone.ts';
import { isObject } from '../json/is-object.ts';

type Node = Record<string, unknown>;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const nonEmptyList = (v: unknown): boolean => Array.isArray(v) && v.length > 0;
const nonEmptyMap = (v: unknown): boolean => isObject(v) && Object.keys(v).length > 0;

const OPENAPI_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);
const X = {
  embedded: 'x-cluster-embedded-resource',
  intOrString: 'x-cluster-int-or-string',
  preserve: 'x-cluster-preserve-unknown-fields',
  listMapKeys: 'x-cluster-list-map-keys',
  listType: 'x-cluster-list-type',
  mapType: 'x-cluster-map-type',
  validations: 'x-cluster-validations',
} as const;

const prop = (p: string, k: string): string => `${p}.properties[${k}]`;
const child = (p: string, c: string): string => `${p}.${c}`;
const idx = (p: string, c: string, i: number): string => `${p}.${c}[${i}]`;

export interface SchemaCheckOptions {
  /** Whether defaults are allowed (false makes every `default` a Forbidden error). Default true. */
  allowDefaults?: boolean;
  /** Appended to `must not be set` when defaults are not allowed. */
  disallowDefaultsReason?: string;
  /** The status subresource is enabled for this version (restricts the root keywords). */
  statusEnabled?: boolean;
  /** Run the structural checks (v1 always does unless spec.preserveUnknownFields is true). Default true. */
  requireStructural?: boolean;
}

/**
 * Every schema problem of one version's openAPIV3Schema. `path` is the schema's field path
 * (`spec.versions[0].schema.openAPIV3Schema`). CEL rules are compiled separately (cel-rules.ts).
 */
export function validateSchema(schema: unknown, path: string, opts: SchemaCheckOptions = {}): FieldError[] {
  const errs: FieldError[] = [];
  if (!isObject(schema)) return [fieldErr.required(path)];
  if (opts.statusEnabled) errs.push(...statusRootCheck(schema, path));
  if (schema.nullable === true) errs.push(fieldErr.forbidden(child(path, 'nullable'), 'nullable cannot be true at the root'));
  if (opts.requireStructural !== false) {
    const structural = validateStructural(schema, path);
    if (structural.length) errs.push(...structural);
    else errs.push(...validateDefaults(schema, path));
  }
  const ssv: Ssv = { allowDefaults: opts.allowDefaults !== false, reason: opts.disallowDefaultsReason ?? '', insideMeta: false };
  openAPISchema(schema, path, ssv, true, errs);
  return errs;
}

// ---------------------------------------------------------------------------------------------
// JSONSchemaProps rules (apiextensions validation: ValidateCustomResourceDefinitionOpenAPISchema)

interface Ssv {
  allowDefaults: boolean;
  reason: string;
  insideMeta: boolean;
}

const ROOT_ALLOWED_WITH_STATUS = ['Description', 'Type', 'Format', 'Title', 'Maximum', 'ExclusiveMaximum', 'Minimum', 'ExclusiveMinimum', 'MaxLength', 'MinLength', 'Pattern', 'MaxItems', 'MinItems', 'UniqueItems', 'MultipleOf', 'Required', 'Items', 'Properties', 'ExternalDocs', 'Example', 'XPreserveUnknownFields', 'XValidations'];
const ROOT_ALLOWED_KEYS = new Set(['description', 'type', 'format', 'title', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'multipleOf', 'required', 'items', 'properties', 'externalDocs', 'example', X.preserve, X.validations]);

function isZero(v: unknown): boolean {
  return v === undefined || v === null || v === false || v === '' || v === 0 || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);
}

function statusRootCheck(schema: Node, path: string): FieldError[] {
  for (const [k, v] of Object.entries(schema)) {
    if (isZero(v)) continue;
    if (k === 'type') {
      if (v !== 'object') return [fieldErr.invalid(child(path, 'type'), v, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled')];
      continue;
    }
    if (!ROOT_ALLOWED_KEYS.has(k)) {
      return [fieldErr.invalid(path, schema, `only [${ROOT_ALLOWED_WITH_STATUS.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`)];
    }
  }
  return [];
}

function ssvValidate(s: Node, p: string, ssv: Ssv, out: FieldError[]): void {
  const type = s.type;
  if (typeof type === 'string' && type !== '' && !OPENAPI_TYPES.includes(type)) out.push(fieldErr.notSupported(child(p, 'type'), type, OPENAPI_TYPES));
  else if (type !== undefined && typeof type !== 'string') out.push(fieldErr.notSupported(child(p, 'type'), type, OPENAPI_TYPES));
  if (s.default !== undefined && !ssv.allowDefaults) out.push(fieldErr.forbidden(child(p, 'default'), ssv.reason ? `must not be set ${ssv.reason}` : 'must not be set'));
  if (str(s.id) !== '') out.push(fieldErr.forbidden(child(p, 'id'), 'id is not supported'));
  if (s.additionalItems !== undefined) out.push(fieldErr.forbidden(child(p, 'additionalItems'), 'additionalItems is not supported'));
  if (nonEmptyMap(s.patternProperties)) out.push(fieldErr.forbidden(child(p, 'patternProperties'), 'patternProperties is not supported'));
  if (nonEmptyMap(s.definitions)) out.push(fieldErr.forbidden(child(p, 'definitions'), 'definitions is not supported'));
  if (s.dependencies !== undefined) out.push(fieldErr.forbidden(child(p, 'dependencies'), 'dependencies is not supported'));
  if (s.$ref !== undefined) out.push(fieldErr.forbidden(child(p, '$ref'), '$ref is not supported'));
  if (type === 'null') out.push(fieldErr.forbidden(child(p, 'type'), 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(s.items) && s.items.length) out.push(fieldErr.forbidden(child(p, 'items'), 'items must be a schema object and not an array'));
  if (ssv.insideMeta && s[X.embedded] === true) out.push(fieldErr.forbidden(child(p, X.embedded), 'must not be used inside of resource meta'));
}

function openAPISchema(s: unknown, p: string, ssv: Ssv, isRoot: boolean, out: FieldError[]): void {
  if (!isObject(s)) return;
  ssvValidate(s, p, ssv, out);
  if (s.uniqueItems === true) out.push(fieldErr.forbidden(child(p, 'uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  const props = isObject(s.properties) ? s.properties : {};
  const ap = s.additionalProperties;
  if (ap !== undefined) {
    if (Object.keys(props).length && (ap === false || isObject(ap))) {
      out.push(fieldErr.forbidden(child(p, 'additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    }
    const sub = ssv.insideMeta ? { ...ssv, allowDefaults: false, reason: 'inside additionalProperties applying to object metadata' } : ssv;
    if (isObject(ap)) openAPISchema(ap, child(p, 'additionalProperties'), sub, false, out);
  }
  for (const k of Object.keys(props).sort()) {
    let sub = ssv;
    if ((isRoot || s[X.embedded] === true) && META_FIELDS.has(k)) {
      sub = { ...sub, insideMeta: true };
      if (isRoot) sub = { ...sub, allowDefaults: false, reason: `in top-level ${k}` };
    }
    openAPISchema(props[k], prop(p, k), sub, false, out);
  }
  openAPISchema(s.not, child(p, 'not'), ssv, false, out);
  for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
    const list = s[key];
    if (Array.isArray(list)) list.forEach((b, i) => openAPISchema(b, idx(p, key, i), ssv, false, out));
  }
  if (isObject(s.items)) openAPISchema(s.items, child(p, 'items'), ssv, false, out);
  else if (Array.isArray(s.items)) s.items.forEach((b, i) => openAPISchema(b, idx(p, 'items', i), ssv, false, out));

  if (s[X.preserve] === false) out.push(fieldErr.invalid(child(p, X.preserve), false, 'must be true or undefined'));

  const type = s.type;
  const mapType = s[X.mapType];
  if (mapType !== undefined && type !== 'object') {
    out.push(!type
      ? fieldErr.required(child(p, 'type'), `must be object if ${X.mapType} is specified`)
      : fieldErr.invalid(child(p, 'type'), type, `must be object if ${X.mapType} is specified`));
  }
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') out.push(fieldErr.notSupported(child(p, X.mapType), mapType, ['atomic', 'granular']));

  const listType = s[X.listType];
  const items = isObject(s.items) ? s.items : undefined;
  if (listType !== undefined && type !== 'array') {
    out.push(!type
      ? fieldErr.required(child(p, 'type'), `must be array if ${X.listType} is specified`)
      : fieldErr.invalid(child(p, 'type'), type, `must be array if ${X.listType} is specified`));
  } else if (listType === 'set' && items) {
    if (items.type === 'array' && items[X.listType] !== undefined && items[X.listType] !== 'atomic') {
      out.push(fieldErr.invalid(child(child(p, 'items'), X.listType), items[X.listType], `must be atomic as item of a list with ${X.listType}=set`));
    } else if (items.type === 'object' && items[X.mapType] !== 'atomic') {
      // upstream reports the item's list type here (a nil pointer when unset)
      out.push(fieldErr.invalid(child(child(p, 'items'), X.mapType), items[X.listType] ?? NIL_COLLECTION, `must be atomic as item of a list with ${X.listType}=set`));
    }
  }
  if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    out.push(fieldErr.notSupported(child(p, X.listType), listType, ['atomic', 'set', 'map']));
  }
  const keys = Array.isArray(s[X.listMapKeys]) ? (s[X.listMapKeys] as unknown[]) : [];
  if (keys.length > 0) {
    if (listType === undefined) out.push(fieldErr.required(child(p, X.listType), `must be map if ${X.listMapKeys} is non-empty`));
    else if (listType !== 'map') out.push(fieldErr.invalid(child(p, X.listType), listType, `must be map if ${X.listMapKeys} is non-empty`));
  }
  if (listType === 'map') {
    if (keys.length === 0) out.push(fieldErr.required(child(p, X.listMapKeys), `must not be empty if ${X.listType} is map`));
    if (s.items === undefined) out.push(fieldErr.required(child(p, 'items'), `must have a schema if ${X.listType} is map`));
    if (Array.isArray(s.items)) out.push(fieldErr.invalid(child(p, 'items'), s.items, `must only have a single schema if ${X.listType} is map`));
    if (items && items.type !== 'object') {
      out.push(fieldErr.invalid(child(child(p, 'items'), 'type'), str(items.type), `must be object if parent array's ${X.listType} is map`));
    }
    if (items && items.type === 'object') {
      const itemProps = isObject(items.properties) ? items.properties : {};
      const seen = new Set<unknown>();
      for (const k of keys) {
        const ks = String(k);
        const kp = itemProps[ks];
        if (isObject(kp)) {
          if (kp.type === 'array' || kp.type === 'object') {
            out.push(fieldErr.invalid(child(prop(child(p, 'items'), ks), 'type'), items.type, `must be a scalar type if parent array's ${X.listType} is map`));
          }
        } else {
          out.push(fieldErr.invalid(child(p, X.listMapKeys), keys, 'entries must all be names of item properties'));
        }
        if (seen.has(k)) out.push(fieldErr.invalid(child(p, X.listMapKeys), keys, 'must not contain duplicate entries'));
        seen.add(k);
      }
    }
  }
  // map and set lists: items not nullable, map keys required or defaulted and not nullable
  if (items && (listType === 'set' || listType === 'map')) {
    if (items.nullable === true) out.push(fieldErr.forbidden(child(child(p, 'items'), 'nullable'), `cannot be nullable when ${X.listType} is ${listType}`));
    if (listType === 'map') {
      const required = new Set(Array.isArray(items.required) ? items.required : []);
      const itemProps = isObject(items.properties) ? items.properties : {};
      for (const k of keys) {
        const kp = itemProps[String(k)];
        if (!isObject(kp)) continue;
        if (!required.has(k) && kp.default === undefined) {
          out.push(fieldErr.required(child(prop(child(p, 'items'), String(k)), 'default'), `this property is in ${X.listMapKeys}, so it must have a default or be a required property`));
        }
        if (kp.nullable === true) out.push(fieldErr.forbidden(child(prop(child(p, 'items'), String(k)), 'nullable'), `this property is in ${X.listMapKeys}, so it cannot be nullable`));
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Structural schema (apiserver/schema: ValidateStructural = invariants + completeness, sorted)

type Level = 'root' | 'item' | 'field';

/** The structural-schema errors of a schema, sorted by their text as upstream sorts them. */
export function validateStructural(schema: Node, path: string): FieldError[] {
  const errs: FieldError[] = [];
  invariants(schema, 'root', path, errs);
  completeness(schema, schema, path, path, errs);
  const text = (e: FieldError): string => `${e.field}: ${e.message}`;
  return dedupe(errs).sort((a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0));
}

function dedupe(errs: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errs.filter((e) => {
    const k = `${e.field}\u0000${e.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

const preserves = (s: Node): boolean => s[X.preserve] === true;

function invariants(s: Node, lvl: Level, p: string, out: FieldError[]): void {
  const type = str(s.type);
  if (type === 'array' && s.items === undefined) out.push(fieldErr.required(child(p, 'items'), 'must be specified'));
  if (isObject(s.items)) invariants(s.items, 'item', child(p, 'items'), out);
  const props = isObject(s.properties) ? s.properties : {};
  for (const k of Object.keys(props)) if (isObject(props[k])) invariants(props[k] as Node, 'field', prop(p, k), out);
  const ap = s.additionalProperties;
  if (ap !== undefined) {
    if (lvl === 'root') out.push(fieldErr.forbidden(child(p, 'additionalProperties'), 'must not be used at the root'));
    if (isObject(ap)) invariants(ap, 'field', child(p, 'additionalProperties'), out);
  }
  const ios = s[X.intOrString] === true;
  const emb = s[X.embedded] === true;
  const puf = preserves(s);
  if (ios && puf) out.push(fieldErr.invalid(child(p, X.preserve), true, `must be false if ${X.intOrString} is true`));
  if (ios && emb) out.push(fieldErr.invalid(child(p, X.embedded), true, `must be false if ${X.intOrString} is true`));

  valueValidation(s, isIntOrStringAnyOf(s), isIntOrStringAllOf(s), lvl, p, out);

  const checkMetadata = lvl === 'root' || emb;
  if (emb && type !== 'object') {
    out.push(type === ''
      ? fieldErr.required(child(p, 'type'), `must be object if ${X.embedded} is true`)
      : fieldErr.invalid(child(p, 'type'), type, `must be object if ${X.embedded} is true`));
  } else if (type === '' && !ios && !puf) {
    const detail = lvl === 'root' ? 'must not be empty at the root' : lvl === 'item' ? 'must not be empty for specified array items' : 'must not be empty for specified object fields';
    out.push(fieldErr.required(child(p, 'type'), detail));
  }
  if (emb && ap !== undefined) out.push(fieldErr.forbidden(child(p, 'additionalProperties'), `must not be used if ${X.embedded} is set`));
  if (lvl === 'root' && type !== '' && type !== 'object') out.push(fieldErr.invalid(child(p, 'type'), type, 'must be object at the root'));
  for (const k of ['kind', 'apiVersion']) {
    if (checkMetadata && isObject(props[k]) && (props[k] as Node).type !== 'string') {
      out.push(fieldErr.invalid(child(prop(p, k), 'type'), str((props[k] as Node).type), 'must be string'));
    }
  }
  if (isObject(props.metadata)) metadataInvariants(props.metadata as Node, checkMetadata, lvl, prop(p, 'metadata'), out);
  if (emb && !puf && Object.keys(props).length === 0) {
    out.push(fieldErr.required(child(p, 'properties'), `must not be empty if ${X.embedded} is true without ${X.preserve}`));
  }
}

/** Keywords the structural form keeps (others, e.g. example and externalDocs, are dropped). */
const IGNORED_IN_STRUCTURAL = new Set(['example', 'externalDocs', '$schema']);

function metadataInvariants(m: Node, checkMetadata: boolean, lvl: Level, p: string, out: FieldError[]): void {
  if (checkMetadata && m.type !== 'object') out.push(fieldErr.invalid(child(p, 'type'), str(m.type), 'must be object'));
  if (lvl !== 'root') return;
  const rest: Node = { ...m };
  const props = isObject(m.properties) ? Object.keys(m.properties) : [];
  const hasName = props.includes('name');
  const hasGen = props.includes('generateName');
  if ((hasName && hasGen && props.length === 2) || ((hasName || hasGen) && props.length === 1)) delete rest.properties;
  delete rest.type;
  delete rest.default;
  const remaining = Object.entries(rest).filter(([k, v]) => !IGNORED_IN_STRUCTURAL.has(k) && !isZero(v));
  if (remaining.length) out.push(fieldErr.forbidden(p, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
}

function isIntOrStringPair(list: unknown): boolean {
  if (!Array.isArray(list) || list.length !== 2) return false;
  const only = (x: unknown, t: string): boolean => isObject(x) && Object.keys(x).length === 1 && x.type === t;
  return only(list[0], 'integer') && only(list[1], 'string');
}
const isIntOrStringAnyOf = (s: Node): boolean => isIntOrStringPair(s.anyOf);
const isIntOrStringAllOf = (s: Node): boolean => Array.isArray(s.allOf) && s.allOf.length >= 1 && isObject(s.allOf[0]) && isIntOrStringPair((s.allOf[0] as Node).anyOf);

function valueValidation(v: Node, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, lvl: Level, p: string, out: FieldError[]): void {
  if (!skipAnyOf && Array.isArray(v.anyOf)) v.anyOf.forEach((x, i) => nestedValueValidation(x, false, false, lvl, idx(p, 'anyOf', i), out));
  if (Array.isArray(v.allOf)) v.allOf.forEach((x, i) => nestedValueValidation(x, skipFirstAllOfAnyOf && i === 0, false, lvl, idx(p, 'allOf', i), out));
  if (Array.isArray(v.oneOf)) v.oneOf.forEach((x, i) => nestedValueValidation(x, false, false, lvl, idx(p, 'oneOf', i), out));
  if (v.not !== undefined) nestedValueValidation(v.not, false, false, lvl, child(p, 'not'), out);
  if (typeof v.pattern === 'string' && v.pattern !== '') {
    // Go's regexp.Compile, as upstream: RE2 syntax (no lookaround, no backreferences) and Go's error text
    const compiled = compilePattern(v.pattern);
    if (!compiled.ok) out.push(fieldErr.invalid(child(p, 'pattern'), v.pattern, `must be a valid regular expression, but isn't: ${compiled.error}`));
  }
}

function nestedValueValidation(v: unknown, skipAnyOf: boolean, skipAllOfAnyOf: boolean, lvl: Level, p: string, out: FieldError[]): void {
  if (!isObject(v)) return;
  valueValidation(v, skipAnyOf, skipAllOfAnyOf, lvl, p, out);
  if (isObject(v.items)) nestedValueValidation(v.items, false, false, lvl, child(p, 'items'), out);
  const props = isObject(v.properties) ? v.properties : {};
  for (const k of Object.keys(props)) nestedValueValidation(props[k], false, false, 'field', prop(p, k), out);
  const forbid = (k: string, detail: string): void => {
    out.push(fieldErr.forbidden(child(p, k), detail));
  };
  if (str(v.type) !== '') forbid('type', 'must be empty to be structural');
  if (v.additionalProperties !== undefined) forbid('additionalProperties', 'must be undefined to be structural');
  if (v.default !== undefined && v.default !== null) forbid('default', 'must be undefined to be structural');
  if (str(v.title) !== '') forbid('title', 'must be empty to be structural');
  if (str(v.description) !== '') forbid('description', 'must be empty to be structural');
  if (v.nullable === true) forbid('nullable', 'must be false to be structural');
  if (v.externalDocs !== undefined) forbid('externalDocs', 'must be undefined to be structural');
  if (v[X.preserve] === true) forbid(X.preserve, 'must be false to be structural');
  if (v[X.embedded] === true) forbid(X.embedded, 'must be false to be structural');
  if (v[X.intOrString] === true) forbid(X.intOrString, 'must be false to be structural');
  if (nonEmptyList(v[X.listMapKeys])) forbid(X.listMapKeys, 'must be empty to be structural');
  if (v[X.listType] !== undefined) forbid(X.listType, 'must be undefined to be structural');
  if (v[X.mapType] !== undefined) forbid(X.mapType, 'must be undefined to be structural');
  if (nonEmptyList(v[X.validations])) forbid(X.validations, 'must be empty to be structural');
  if (isObject(props.metadata)) out.push(fieldErr.forbidden(prop(p, 'metadata'), 'must not be specified in a nested context'));
}

/** Completeness: fields and items named inside the root's logical junctors also exist outside them. */
function completeness(v: Node, s: Node | undefined, sPath: string, vPath: string, out: FieldError[]): void {
  if (s === undefined) {
    out.push(fieldErr.required(sPath, `because it is defined in ${vPath}`));
    return;
  }
  if (v.not !== undefined) nestedCompleteness(v.not, s, sPath, child(vPath, 'not'), out);
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = v[key];
    if (Array.isArray(list)) list.forEach((x, i) => nestedCompleteness(x, s, sPath, idx(vPath, key, i), out));
  }
}

function nestedCompleteness(v: unknown, s: Node | undefined, sPath: string, vPath: string, out: FieldError[]): void {
  if (!isObject(v)) return;
  if (s === undefined) {
    out.push(fieldErr.required(sPath, `because it is defined in ${vPath}`));
    return;
  }
  completeness(v, s, sPath, vPath, out);
  if (isObject(v.items)) nestedCompleteness(v.items, isObject(s.items) ? s.items : undefined, child(sPath, 'items'), child(vPath, 'items'), out);
  const vProps = isObject(v.properties) ? v.properties : {};
  const sProps = isObject(s.properties) ? s.properties : {};
  for (const k of Object.keys(vProps)) {
    if (!isObject(sProps[k])) out.push(fieldErr.required(prop(sPath, k), `because it is defined in ${prop(vPath, k)}`));
    else nestedCompleteness(vProps[k], sProps[k] as Node, prop(sPath, k), prop(vPath, k), out);
  }
}

// ---------------------------------------------------------------------------------------------
// Defaults (apiserver/schema/defaulting ValidateDefaults): pruned, and valid against their schema

/** Every default of the schema must survive pruning and validate against the schema that carries it. */
export function validateDefaults(schema: Node, path: string): FieldError[] {
  const out: FieldError[] = [];
  walkDefaults(schema, path, true, false, out);
  return out;
}

function walkDefaults(s: Node, p: string, isResourceRoot: boolean, insideMeta: boolean, out: FieldError[]): void {
  const emb = s[X.embedded] === true || isResourceRoot;
  if (emb) insideMeta = false;
  if (s.default !== undefined && s.default !== null && !insideMeta) checkDefault(s, p, out);
  if (isObject(s.items)) walkDefaults(s.items, child(p, 'items'), false, insideMeta, out);
  const props = isObject(s.properties) ? s.properties : {};
  for (const k of Object.keys(props).sort()) {
    if (!isObject(props[k])) continue;
    walkDefaults(props[k] as Node, prop(p, k), false, insideMeta || (emb && META_FIELDS.has(k)), out);
  }
}

function compileNode(s: Node): ReturnType<typeof compileSchemaToClosures> | undefined {
  const { default: _d, ...rest } = s;
  try {
    return compileSchemaToClosures(rest as Schema, { cel: crdRuleEngine });
  } catch (e) {
    if (!(e instanceof SchemaCompileError)) throw e;
  }
  try {
    return compileSchemaToClosures(stripValidations(rest) as Schema, {});
  } catch {
    return undefined;
  }
}

function stripValidations(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripValidations);
  if (!isObject(v)) return v;
  const out: Node = {};
  for (const [k, x] of Object.entries(v)) if (k !== X.validations) out[k] = stripValidations(x);
  return out;
}

function checkDefault(s: Node, p: string, out: FieldError[]): void {
  const compiled = compileNode(s);
  if (!compiled) return;
  const dp = child(p, 'default');
  const value = s.default;
  const pruned = jsonRoundTrip(value);
  compiled.prune(pruned);
  if (JSON.stringify(pruned) !== JSON.stringify(value)) out.push(fieldErr.invalid(dp, value, 'must not have unknown fields'));
  for (const e of compiled.validate(jsonRoundTrip(value))) {
    const f = e.field === '' ? dp : e.field.startsWith('[') ? dp + e.field : `${dp}.${e.field}`;
    // kube-openapi words the path into the detail (`<path> in body should be ...`)
    const message = e.message.replace(`: ${e.field} in body `, `: ${f} in body `);
    out.push({ ...e, field: f, message });
  }
}
