// ObjectMeta rules (apimachinery api/validation/objectmeta.go, meta/v1/validation), applied to the
// root of a resource and to every x-cluster-embedded-resource.
import type { FieldError, ResourceContext } from './types.ts';
import { fieldErr, childPath } from './errors.ts';
import {
  isDNS1035Label as isDNS1035, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue, isValidPathSegmentName,
} from './syntax.ts';
import { deepEqual, getField, isObject, hasOwn } from './rules/util.ts';
import { dns1123LabelOk, dns1123SubdomainOk, labelValueOk, qualifiedNameOk } from './fastsyntax.ts';

export type NameSyntax = ResourceContext['nameSyntax'];

export const TOTAL_ANNOTATION_SIZE_LIMIT = 262144;
export const FIELD_IMMUTABLE = 'field is immutable';

/** Masks a trailing dash of a generateName prefix, as upstream's prefix validation does. */
function maskTrailingDash(s: string): string {
  return s.length > 1 && s.endsWith('-') ? s.slice(0, -1) + 'a' : s;
}

/** isQualifiedName(s.toLowerCase()) is empty, without lowering when s is plain ASCII. */
function annotationKeyOk(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 127) return false;
  return qualifiedNameOk(s); // an accepted ASCII key stays accepted once lowered
}

/** nameProblems(syntax, name, prefix) is empty. */
function nameOk(syntax: NameSyntax, name: string, prefix: boolean): boolean {
  switch (syntax) {
    case 'dns1123Subdomain': return !prefix && dns1123SubdomainOk(name);
    case 'dns1123Label': return !prefix && dns1123LabelOk(name);
    case 'pathSegment': return !prefix && name !== '.' && name !== '..' && name.indexOf('/') < 0 && name.indexOf('%') < 0;
  }
}

export function nameProblems(syntax: NameSyntax, name: string, prefix: boolean): string[] {
  switch (syntax) {
    case 'dns1123Subdomain': return isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
    case 'dns1123Label': return isDNS1123Label(prefix ? maskTrailingDash(name) : name);
    case 'pathSegment': return isValidPathSegmentName(name, prefix);
  }
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

export interface MetaOptions {
  /** `metadata` or `spec.template.metadata`. */
  path: string;
  nameSyntax: NameSyntax;
  /** Root objects need a name (or generateName); embedded ones do not. */
  requireName: boolean;
  /** true: namespace required; false: namespace forbidden; null: optional (embedded). */
  namespaced: boolean | null;
}

function bytes(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/**
 * Whether validateObjectMeta surely reports nothing: the common valid metadata checked without
 * building a path or a message. False also where it cannot tell cheaply (a generateName, owner
 * references): the full validation then decides.
 */
export function objectMetaSurelyValid(meta: unknown, o: MetaOptions): boolean {
  if (!isObject(meta)) return false;
  // a plain object: its fields are its enumerable keys (a loop over them costs less than named reads of every field)
  const proto: unknown = Object.getPrototypeOf(meta);
  if (proto !== Object.prototype && proto !== null) return false;
  let named = false;
  let inNamespace = false;
  for (const k in meta) {
    const v = meta[k];
    switch (k) {
      case 'name':
        if (typeof v === 'string' && v !== '') {
          if (!nameOk(o.nameSyntax, v, false)) return false;
          named = true;
        }
        break;
      case 'generateName':
        if (typeof v === 'string' && v !== '') return false;
        break;
      case 'namespace':
        if (typeof v === 'string' && v !== '') {
          if (o.namespaced === false || !dns1123LabelOk(v)) return false;
          inNamespace = true;
        }
        break;
      case 'generation':
        if (typeof v === 'number' && v < 0) return false;
        break;
      case 'labels':
        if (v !== undefined && v !== null && !labelsSurelyValid(v)) return false;
        break;
      case 'annotations':
        if (v !== undefined && v !== null && !annotationsSurelyValid(v)) return false;
        break;
      case 'ownerReferences':
        if (v !== undefined && v !== null && !ownerReferencesSurelyValid(v)) return false;
        break;
      case 'finalizers':
        if (v !== undefined && v !== null && !finalizersSurelyValid(v)) return false;
        break;
    }
  }
  return (named || !o.requireName) && (inNamespace || o.namespaced !== true);
}

/** validateLabels reports nothing (the same loop, no message built). */
export function labelsSurelyValid(v: unknown): boolean {
  if (!isObject(v)) return false;
  for (const k in v) {
    if (!hasOwn(v, k)) continue;
    const val = v[k];
    if (typeof val !== 'string' || !qualifiedNameOk(k) || !labelValueOk(val)) return false;
  }
  return true;
}

/** validateAnnotations reports nothing, decided by the lengths alone (else false: the full check counts bytes). */
function annotationsSurelyValid(v: unknown): boolean {
  if (!isObject(v)) return false;
  let units = 0;
  for (const k in v) {
    if (!hasOwn(v, k)) continue;
    const val = v[k];
    if (typeof val !== 'string' || !annotationKeyOk(k)) return false;
    units += k.length + val.length;
  }
  return units * 3 <= TOTAL_ANNOTATION_SIZE_LIMIT;
}

/** validateOwnerReferences reports nothing (the same reads, no group-version split). */
function ownerReferencesSurelyValid(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  let controllers = 0;
  for (const ref of v) {
    if (!isObject(ref)) return false;
    const { apiVersion, kind, name, uid } = ref;
    if (typeof apiVersion !== 'string' || typeof kind !== 'string' || kind === '') return false;
    if (typeof name !== 'string' || name === '' || typeof uid !== 'string' || uid === '') return false;
    // parseGroupVersion: at most one '/', and a version after it
    const slash = apiVersion.indexOf('/');
    if (slash < 0 ? apiVersion === '' : slash === apiVersion.length - 1 || apiVersion.indexOf('/', slash + 1) >= 0) return false;
    if ((apiVersion === 'v1' || apiVersion === '/v1') && kind === 'Event') return false;
    if (ref.controller === true && ++controllers > 1) return false;
  }
  return true;
}

/** validateFinalizers reports nothing. */
function finalizersSurelyValid(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  let orphan = false;
  let foreground = false;
  for (const f of v) {
    if (typeof f !== 'string' || !qualifiedNameOk(f)) return false;
    if (f === 'orphan') orphan = true;
    else if (f === 'foregroundDeletion') foreground = true;
  }
  return !(orphan && foreground);
}

/** Validates an ObjectMeta value; appends errors to `out`. */
export function validateObjectMeta(meta: unknown, o: MetaOptions, out: FieldError[]): void {
  if (!objectMetaSurelyValid(meta, o)) validateObjectMetaFully(meta, o, out);
}

/** validateObjectMeta without the shortcut for valid metadata (metadata-fast.test.ts holds the two together). */
export function validateObjectMetaFully(meta: unknown, o: MetaOptions, out: FieldError[]): void {
  const p = o.path;
  if (meta !== undefined && meta !== null && !isObject(meta)) {
    out.push(fieldErr.typeInvalid(p, typeName(meta), `${p} in body must be of type object: ${JSON.stringify(typeName(meta))}`));
    return;
  }
  const m: Record<string, unknown> = isObject(meta) ? meta : {};
  const name = str(m.name);
  const generateName = str(m.generateName);
  if (generateName) {
    for (const msg of nameProblems(o.nameSyntax, generateName, true)) out.push(fieldErr.invalid(childPath(p, 'generateName'), generateName, msg));
  }
  if (!name) {
    if (o.requireName && !generateName) out.push(fieldErr.required(childPath(p, 'name'), 'name or generateName is required'));
  } else if (!nameOk(o.nameSyntax, name, false)) {
    for (const msg of nameProblems(o.nameSyntax, name, false)) out.push(fieldErr.invalid(childPath(p, 'name'), name, msg));
  }
  const ns = str(m.namespace);
  if (o.namespaced === true) {
    if (!ns) out.push(fieldErr.required(childPath(p, 'namespace')));
    else if (!dns1123LabelOk(ns)) for (const msg of isDNS1123Label(ns)) out.push(fieldErr.invalid(childPath(p, 'namespace'), ns, msg));
  } else if (o.namespaced === false) {
    if (ns) out.push(fieldErr.forbidden(childPath(p, 'namespace'), 'not allowed on this type'));
  } else if (ns && !dns1123LabelOk(ns)) {
    for (const msg of isDNS1123Label(ns)) out.push(fieldErr.invalid(childPath(p, 'namespace'), ns, msg));
  }
  const gen = m.generation;
  if (typeof gen === 'number' && gen < 0) out.push(fieldErr.invalid(childPath(p, 'generation'), gen, 'must be greater than or equal to 0'));
  if (m.labels !== undefined) validateLabels(m.labels, childPath(p, 'labels'), out);
  if (m.annotations !== undefined) validateAnnotations(m.annotations, childPath(p, 'annotations'), out);
  if (m.ownerReferences !== undefined) validateOwnerReferences(m.ownerReferences, childPath(p, 'ownerReferences'), out);
  if (m.finalizers !== undefined) validateFinalizers(m.finalizers, childPath(p, 'finalizers'), out);
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v === 'object' ? 'object' : typeof v;
}

function stringMap(v: unknown, path: string, out: FieldError[]): Record<string, unknown> | null {
  if (v === undefined || v === null) return null;
  if (!isObject(v)) {
    out.push(fieldErr.typeInvalid(path, typeName(v), `${path} in body must be of type object: ${JSON.stringify(typeName(v))}`));
    return null;
  }
  return v;
}

export function validateLabels(v: unknown, path: string, out: FieldError[]): void {
  const labels = stringMap(v, path, out);
  if (!labels) return;
  for (const k in labels) {
    if (!hasOwn(labels, k)) continue;
    if (!qualifiedNameOk(k)) for (const msg of isQualifiedName(k)) out.push(fieldErr.invalid(path, k, msg));
    const val = labels[k];
    if (typeof val !== 'string') {
      out.push(fieldErr.typeInvalid(`${path}[${k}]`, typeName(val), `${path}[${k}] in body must be of type string: ${JSON.stringify(typeName(val))}`));
      continue;
    }
    if (!labelValueOk(val)) for (const msg of isValidLabelValue(val)) out.push(fieldErr.invalid(path, val, msg));
  }
}

export function validateAnnotations(v: unknown, path: string, out: FieldError[]): void {
  const ann = stringMap(v, path, out);
  if (!ann) return;
  // UTF-16 units: a string's UTF-8 bytes are between its length and three times it, so the
  // bytes are counted only when the lengths cannot decide
  let units = 0;
  for (const k in ann) {
    if (!hasOwn(ann, k)) continue;
    if (!annotationKeyOk(k)) for (const msg of isQualifiedName(k.toLowerCase())) out.push(fieldErr.invalid(path, k, msg));
    const val = ann[k];
    if (typeof val !== 'string') {
      out.push(fieldErr.typeInvalid(`${path}[${k}]`, typeName(val), `${path}[${k}] in body must be of type string: ${JSON.stringify(typeName(val))}`));
      continue;
    }
    units += k.length + val.length;
  }
  if (units * 3 <= TOTAL_ANNOTATION_SIZE_LIMIT) return;
  let total = units;
  if (units <= TOTAL_ANNOTATION_SIZE_LIMIT) {
    total = 0;
    for (const k in ann) {
      const val = ann[k];
      if (hasOwn(ann, k) && typeof val === 'string') total += bytes(k) + bytes(val);
    }
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) out.push(fieldErr.tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT));
}

export function validateFinalizers(v: unknown, path: string, out: FieldError[]): void {
  if (v === undefined || v === null) return;
  if (!Array.isArray(v)) {
    out.push(fieldErr.typeInvalid(path, typeName(v), `${path} in body must be of type array: ${JSON.stringify(typeName(v))}`));
    return;
  }
  let orphan = false;
  let foreground = false;
  for (const f of v) {
    if (typeof f !== 'string') {
      out.push(fieldErr.invalid(path, f, 'must be a string'));
      continue;
    }
    if (!qualifiedNameOk(f)) for (const msg of isQualifiedName(f)) out.push(fieldErr.invalid(path, f, msg));
    if (f === 'orphan') orphan = true;
    if (f === 'foregroundDeletion') foreground = true;
  }
  if (orphan && foreground) out.push(fieldErr.invalid(path, v, 'finalizer orphan and foregroundDeletion cannot be both set'));
}

/** apiVersion -> [group, version], or null when it has more than one '/'. */
export function parseGroupVersion(s: string): [string, string] | null {
  if (s === '' || s === '/') return ['', ''];
  const parts = s.split('/');
  if (parts.length === 1) return ['', parts[0]];
  if (parts.length === 2) return [parts[0], parts[1]];
  return null;
}

export function validateOwnerReferences(v: unknown, path: string, out: FieldError[]): void {
  if (v === undefined || v === null) return;
  if (!Array.isArray(v)) {
    out.push(fieldErr.typeInvalid(path, typeName(v), `${path} in body must be of type array: ${JSON.stringify(typeName(v))}`));
    return;
  }
  let firstController = '';
  for (const ref of v) {
    const r = isObject(ref) ? ref : {};
    const apiVersion = str(r.apiVersion);
    const kind = str(r.kind);
    const gv = parseGroupVersion(apiVersion) ?? ['', ''];
    if (!gv[1]) out.push(fieldErr.invalid(childPath(path, 'apiVersion'), apiVersion, 'version must not be empty'));
    if (!kind) out.push(fieldErr.invalid(childPath(path, 'kind'), kind, 'kind must not be empty'));
    if (!str(r.name)) out.push(fieldErr.invalid(childPath(path, 'name'), str(r.name), 'name must not be empty'));
    if (!str(r.uid)) out.push(fieldErr.invalid(childPath(path, 'uid'), str(r.uid), 'uid must not be empty'));
    if (gv[0] === '' && gv[1] === 'v1' && kind === 'Event') {
      out.push(fieldErr.invalid(path, ref, `/v1, Kind=Event is disallowed from being an owner`));
    }
    if (r.controller === true) {
      const cur = `${kind}/${str(r.name)}`;
      if (firstController) {
        out.push(fieldErr.invalid(path, v,
          `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${cur}`));
      } else {
        firstController = cur;
      }
    }
  }
}

/** Update rules of ObjectMeta: immutable identity fields and finalizers of a deleting object. */
export function validateObjectMetaUpdate(meta: unknown, oldMeta: unknown, path: string, out: FieldError[]): void {
  const m = isObject(meta) ? meta : {};
  const o = isObject(oldMeta) ? oldMeta : {};
  if (getField(o, 'deletionTimestamp') !== undefined && getField(o, 'deletionTimestamp') !== null) {
    const oldF = new Set(Array.isArray(o.finalizers) ? o.finalizers : []);
    const extra = [...new Set(Array.isArray(m.finalizers) ? m.finalizers : [])].filter((f) => !oldF.has(f)).map(String).sort();
    if (extra.length) {
      out.push(fieldErr.forbidden(childPath(path, 'finalizers'),
        `no new finalizers can be added if the object is being deleted, found new finalizers []string{${extra.map((e) => JSON.stringify(e)).join(', ')}}`));
    }
  }
  for (const f of ['name', 'namespace', 'uid']) {
    const nv = str(m[f]);
    if (nv !== str(o[f])) out.push(fieldErr.invalid(childPath(path, f), nv, FIELD_IMMUTABLE));
  }
  for (const f of ['creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds']) {
    const nv = hasOwn(m, f) ? m[f] : undefined;
    const ov = hasOwn(o, f) ? o[f] : undefined;
    // creationTimestamp: an omitted value on update is filled from the stored object by the server.
    if (f === 'creationTimestamp' && (nv === undefined || nv === null)) continue;
    if (!deepEqual(nv, ov)) out.push(fieldErr.invalid(childPath(path, f), nv ?? null, FIELD_IMMUTABLE));
  }
}

const DNS1035_KIND_ERR = 'may have mixed case, but should otherwise match: ';

/** apiVersion, kind and metadata of an x-cluster-embedded-resource (apiextensions objectmeta). */
export function validateEmbeddedResource(x: Record<string, unknown>, path: string, out: FieldError[]): void {
  if (!hasOwn(x, 'apiVersion')) out.push(fieldErr.required(childPath(path, 'apiVersion'), 'must not be empty'));
  if (!hasOwn(x, 'kind')) out.push(fieldErr.required(childPath(path, 'kind'), 'must not be empty'));
  if (hasOwn(x, 'apiVersion')) {
    const av = x.apiVersion;
    const p = childPath(path, 'apiVersion');
    if (typeof av !== 'string') out.push(fieldErr.invalid(p, av, 'must be a string'));
    else if (av.length === 0) out.push(fieldErr.invalid(p, av, 'must not be empty'));
    else if (!parseGroupVersion(av)) out.push(fieldErr.invalid(p, av, `unexpected GroupVersion string: ${av}`));
  }
  if (hasOwn(x, 'kind')) {
    const k = x.kind;
    const p = childPath(path, 'kind');
    if (typeof k !== 'string') out.push(fieldErr.invalid(p, k, 'must be a string'));
    else if (k.length === 0) out.push(fieldErr.invalid(p, k, 'must not be empty'));
    else {
      const errs = isDNS1035(k.toLowerCase());
      if (errs.length) out.push(fieldErr.invalid(p, k, DNS1035_KIND_ERR + errs.join(',')));
    }
  }
  if (hasOwn(x, 'metadata')) {
    validateObjectMeta(x.metadata, { path: childPath(path, 'metadata'), nameSyntax: 'pathSegment', requireName: false, namespaced: null }, out);
  }
}

