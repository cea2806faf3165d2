// The Swagger 2.0 document as the protobuf message `openapi.v2.Document` of google/gnostic-models
// (openapiv2/OpenAPIv2.proto), which upstream's kube-openapi serves at /openapi/v2 for
// `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf` and which kubectl reads for
// client-side validation and `explain --output=plaintext-openapiv2`.
//
// The mapping follows gnostic's JSON → message rules: maps become ordered `Named*` pairs in
// document order; `x-*` keys become `vendor_extension` NamedAny whose Any carries the value as YAML
// text; `$ref` is `_ref` in a Schema and a JsonReference where a value may be a reference; `type`
// is a TypeItem (one string or several); `items` an ItemsItem (one schema or several);
// `additionalProperties` a schema or a boolean; `enum`, `default` and `example` are Any. Keys the
// message has no field for are left out (gnostic reports them as errors; this document has none).

import { stringify } from 'yaml';
import { ProtoWriter } from './protobuf-writer.ts';
import { isObject } from '../json/is-object.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const str = (v: Json | undefined): string | undefined => (typeof v === 'string' ? v : undefined);
const bool = (v: Json | undefined): boolean | undefined => (typeof v === 'boolean' ? v : undefined);
const num = (v: Json | undefined): number | undefined => (typeof v === 'number' ? v : undefined);
// int64 fields take integers only, as gnostic's IntForScalarNode does
const int = (v: Json | undefined): number | undefined => (typeof v === 'number' && Number.isInteger(v) ? v : undefined);
const strs = (v: Json | undefined): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const entries = (v: Json | undefined): [string, Json][] => (isObject(v) ? Object.entries(v) : []);

/** gnostic's Any: the value re-marshalled as YAML. YAML 1.1 quoting keeps `yes`/`on` strings strings for yaml.v2 readers. */
function any(v: Json): ProtoWriter {
  return new ProtoWriter().stringAlways(2, stringify(v, { version: '1.1', lineWidth: 0, blockQuote: false }));
}

function namedAny(name: string, v: Json): ProtoWriter {
  return new ProtoWriter().stringAlways(1, name).message(2, any(v));
}

/** Every `x-*` key of an object as repeated NamedAny in field `no`. */
function vendorExtensions(w: ProtoWriter, no: number, o: JsonObject): void {
  for (const [k, v] of Object.entries(o)) if (k.startsWith('x-')) w.message(no, namedAny(k, v));
}

function anyField(w: ProtoWriter, no: number, v: Json | undefined): void {
  if (v !== undefined) w.message(no, any(v));
}

function externalDocs(o: JsonObject): ProtoWriter {
  const w = new ProtoWriter().string(1, str(o.description)).string(2, str(o.url));
  vendorExtensions(w, 3, o);
  return w;
}

function xml(o: JsonObject): ProtoWriter {
  const w = new ProtoWriter().string(1, str(o.name)).string(2, str(o.namespace)).string(3, str(o.prefix)).bool(4, bool(o.attribute)).bool(5, bool(o.wrapped));
  vendorExtensions(w, 6, o);
  return w;
}

export function schema(o: JsonObject): ProtoWriter {
  const w = new ProtoWriter()
    .string(1, str(o.$ref))
    .string(2, str(o.format))
    .string(3, str(o.title))
    .string(4, str(o.description));
  anyField(w, 5, o.default);
  w.double(6, num(o.multipleOf))
    .double(7, num(o.maximum))
    .bool(8, bool(o.exclusiveMaximum))
    .double(9, num(o.minimum))
    .bool(10, bool(o.exclusiveMinimum))
    .int64(11, int(o.maxLength))
    .int64(12, int(o.minLength))
    .string(13, str(o.pattern))
    .int64(14, int(o.maxItems))
    .int64(15, int(o.minItems))
    .bool(16, bool(o.uniqueItems))
    .int64(17, int(o.maxProperties))
    .int64(18, int(o.minProperties))
    .strings(19, strs(o.required));
  if (Array.isArray(o.enum)) for (const e of o.enum) w.message(20, any(e));
  const ap = o.additionalProperties;
  // a oneof member has presence: `additionalProperties: false` is written as boolean false
  if (isObject(ap)) w.message(21, new ProtoWriter().message(1, schema(ap)));
  else if (typeof ap === 'boolean') w.message(21, new ProtoWriter().boolAlways(2, ap));
  if (typeof o.type === 'string') w.message(22, new ProtoWriter().stringAlways(1, o.type));
  else if (Array.isArray(o.type)) w.message(22, new ProtoWriter().strings(1, strs(o.type)));
  if (isObject(o.items)) w.message(23, new ProtoWriter().message(1, schema(o.items)));
  else if (Array.isArray(o.items)) {
    const items = new ProtoWriter();
    for (const s of o.items) if (isObject(s)) items.message(1, schema(s));
    w.message(23, items);
  }
  if (Array.isArray(o.allOf)) for (const s of o.allOf) if (isObject(s)) w.message(24, schema(s));
  if (isObject(o.properties)) {
    const props = new ProtoWriter();
    for (const [k, s] of Object.entries(o.properties)) if (isObject(s)) props.message(1, new ProtoWriter().stringAlways(1, k).message(2, schema(s)));
    w.message(25, props);
  }
  w.string(26, str(o.discriminator)).bool(27, bool(o.readOnly));
  if (isObject(o.xml)) w.message(28, xml(o.xml));
  if (isObject(o.externalDocs)) w.message(29, externalDocs(o.externalDocs));
  anyField(w, 30, o.example);
  vendorExtensions(w, 31, o);
  return w;
}

function fileSchema(o: JsonObject): ProtoWriter {
  const w = new ProtoWriter().string(1, str(o.format)).string(2, str(o.title)).string(3, str(o.description));
  anyField(w, 4, o.default);
  w.strings(5, strs(o.required)).string(6, str(o.type)).bool(7, bool(o.readOnly));
  if (isObject(o.externalDocs)) w.message(8, externalDocs(o.externalDocs));
  anyField(w, 9, o.example);
  vendorExtensions(w, 10, o);
  return w;
}

/**
 * The seventeen validation fields parameters, items and headers share (type … multipleOf), in
 * that order from field `start`; the messages differ only in where the run starts.
 */
function primitiveRun(w: ProtoWriter, start: number, o: JsonObject): void {
  w.string(start, str(o.type)).string(start + 1, str(o.format));
  if (isObject(o.items)) w.message(start + 2, primitivesItems(o.items));
  w.string(start + 3, str(o.collectionFormat));
  anyField(w, start + 4, o.default);
  w.double(start + 5, num(o.maximum))
    .bool(start + 6, bool(o.exclusiveMaximum))
    .double(start + 7, num(o.minimum))
    .bool(start + 8, bool(o.exclusiveMinimum))
    .int64(start + 9, int(o.maxLength))
    .int64(start + 10, int(o.minLength))
    .string(start + 11, str(o.pattern))
    .int64(start + 12, int(o.maxItems))
    .int64(start + 13, int(o.minItems))
    .bool(start + 14, bool(o.uniqueItems));
  if (Array.isArray(o.enum)) for (const e of o.enum) w.message(start + 15, any(e));
  w.double(start + 16, num(o.multipleOf));
}

function primitivesItems(o: JsonObject): ProtoWriter {
  const w = new ProtoWriter();
  primitiveRun(w, 1, o);
  vendorExtensions(w, 18, o);
  return w;
}

function header(o: JsonObject): ProtoWriter {
  const w = new ProtoWriter();
  primitiveRun(w, 1, o);
  w.string(18, str(o.description));
  vendorExtensions(w, 19, o);
  return w;
}

/** NonBodyParameter's oneof member by `in`; query and formData have allowEmptyValue (5) before the run. */
const NON_BODY: Record<string, { member: number; allowEmptyValue: boolean }> = {
  header: { member: 1, allowEmptyValue: false },
  formData: { member: 2, allowEmptyValue: true },
  query: { member: 3, allowEmptyValue: true },
  path: { member: 4, allowEmptyValue: false },
};

function parameter(o: JsonObject): ProtoWriter {
  if (o.in === 'body') {
    const body = new ProtoWriter().string(1, str(o.description)).string(2, str(o.name)).string(3, str(o.in)).bool(4, bool(o.required));
    if (isObject(o.schema)) body.message(5, schema(o.schema));
    vendorExtensions(body, 6, o);
    return new ProtoWriter().message(1, body);
  }
  const kind = NON_BODY[str(o.in) ?? ''] ?? NON_BODY.query;
  const sub = new ProtoWriter().bool(1, bool(o.required)).string(2, str(o.in)).string(3, str(o.description)).string(4, str(o.name));
  if (kind.allowEmptyValue) sub.bool(5, bool(o.allowEmptyValue));
  const start = kind.allowEmptyValue ? 6 : 5;
  primitiveRun(sub, start, o);
  vendorExtensions(sub, start + 17, o);
  return new ProtoWriter().message(2, new ProtoWriter().message(kind.member, sub));
}

function jsonReference(o: JsonObject): ProtoWriter {
  return new ProtoWriter().string(1, str(o.$ref)).string(2, str(o.description));
}

/** ParametersItem: a parameter (1) or a JsonReference (2). */
function parametersItem(o: JsonObject): ProtoWriter {
  return typeof o.$ref === 'string' ? new ProtoWriter().message(2, jsonReference(o)) : new ProtoWriter().message(1, parameter(o));
}

function response(o: JsonObject): ProtoWriter {
  const w = new ProtoWriter().string(1, str(o.description));
  // SchemaItem: gnostic only falls back to FileSchema for `type: file`, which Schema's type enum lacks
  if (isObject(o.schema)) w.message(2, o.schema.type === 'file' ? new ProtoWriter().message(2, fileSchema(o.schema)) : new ProtoWriter().message(1, schema(o.schema)));
  if (isObject(o.headers)) {
    const hs = new ProtoWriter();
    for (const [k, h] of entries(o.headers)) if (isObject(h)) hs.message(1, new ProtoWriter().stringAlways(1, k).message(2, header(h)));
    w.message(3, hs);
  }
  if (isObject(o.examples)) {
    const ex = new ProtoWriter();
    for (const [k, v] of entries(o.examples)) ex.message(1, namedAny(k, v));
    w.message(4, ex);
  }
  vendorExtensions(w, 5, o);
  return w;
}

function responses(o: JsonObject): ProtoWriter {
  const w = new ProtoWriter();
  for (const [code, r] of Object.entries(o)) {
    if (!/^([0-9]{3}|default)$/.test(code) || !isObject(r)) continue;
    const value = typeof r.$ref === 'string' ? new ProtoWriter().message(2, jsonReference(r)) : new ProtoWriter().message(1, response(r));
    w.message(1, new ProtoWriter().stringAlways(1, code).message(2, value));
  }
  vendorExtensions(w, 2, o);
  return w;
}

/** SecurityRequirement: name → list of scopes. */
function securityRequirement(o: JsonObject): ProtoWriter {
  const w = new ProtoWriter();
  for (const [k, scopes] of Object.entries(o)) w.message(1, new ProtoWriter().stringAlways(1, k).message(2, new ProtoWriter().strings(1, strs(scopes))));
  return w;
}

function operation(o: JsonObject): ProtoWriter {
  const w = new ProtoWriter().strings(1, strs(o.tags)).string(2, str(o.summary)).string(3, str(o.description));
  if (isObject(o.externalDocs)) w.message(4, externalDocs(o.externalDocs));
  w.string(5, str(o.operationId)).strings(6, strs(o.produces)).strings(7, strs(o.consumes));
  if (Array.isArray(o.parameters)) for (const p of o.parameters) if (isObject(p)) w.message(8, parametersItem(p));
  if (isObject(o.responses)) w.message(9, responses(o.responses));
  w.strings(10, strs(o.schemes)).bool(11, bool(o.deprecated));
  if (Array.isArray(o.security)) for (const s of o.security) if (isObject(s)) w.message(12, securityRequirement(s));
  vendorExtensions(w, 13, o);
  return w;
}

const OPERATIONS: readonly [string, number][] = [
  ['get', 2],
  ['put', 3],
  ['post', 4],
  ['delete', 5],
  ['options', 6],
  ['head', 7],
  ['patch', 8],
];

export function pathItem(o: JsonObject): ProtoWriter {
  const w = new ProtoWriter().string(1, str(o.$ref));
  for (const [method, no] of OPERATIONS) {
    const op = o[method];
    if (isObject(op)) w.message(no, operation(op));
  }
  if (Array.isArray(o.parameters)) for (const p of o.parameters) if (isObject(p)) w.message(9, parametersItem(p));
  vendorExtensions(w, 10, o);
  return w;
}

function paths(o: JsonObject): ProtoWriter {
  const w = new ProtoWriter();
  vendorExtensions(w, 1, o);
  for (const [p, item] of Object.entries(o)) if (p.startsWith('/') && isObject(item)) w.message(2, new ProtoWriter().stringAlways(1, p).message(2, pathItem(item)));
  return w;
}

function info(o: JsonObject): ProtoWriter {
  const w = new ProtoWriter().string(1, str(o.title)).string(2, str(o.version)).string(3, str(o.description)).string(4, str(o.termsOfService));
  if (isObject(o.contact)) {
    const c = new ProtoWriter().string(1, str(o.contact.name)).string(2, str(o.contact.url)).string(3, str(o.contact.email));
    vendorExtensions(c, 4, o.contact);
    w.message(5, c);
  }
  if (isObject(o.license)) {
    const l = new ProtoWriter().string(1, str(o.license.name)).string(2, str(o.license.url));
    vendorExtensions(l, 3, o.license);
    w.message(6, l);
  }
  vendorExtensions(w, 7, o);
  return w;
}

function oauth2Scopes(o: Json | undefined): ProtoWriter {
  const w = new ProtoWriter();
  for (const [k, v] of entries(o)) w.message(1, new ProtoWriter().stringAlways(1, k).string(2, str(v)));
  return w;
}

/** SecurityDefinitionsItem: the oneof member by `type` (and `flow` for oauth2), with its own numbering. */
function securityScheme(o: JsonObject): ProtoWriter {
  const w = new ProtoWriter().string(1, str(o.type));
  let member: number;
  if (o.type === 'basic') {
    member = 1;
    w.string(2, str(o.description));
    vendorExtensions(w, 3, o);
  } else if (o.type === 'apiKey') {
    member = 2;
    w.string(2, str(o.name)).string(3, str(o.in)).string(4, str(o.description));
    vendorExtensions(w, 5, o);
  } else {
    const flow = str(o.flow) ?? 'implicit';
    member = ({ implicit: 3, password: 4, application: 5, accessCode: 6 } as Record<string, number>)[flow] ?? 3;
    w.string(2, flow);
    if (isObject(o.scopes)) w.message(3, oauth2Scopes(o.scopes));
    if (member === 6) {
      w.string(4, str(o.authorizationUrl)).string(5, str(o.tokenUrl)).string(6, str(o.description));
      vendorExtensions(w, 7, o);
    } else {
      w.string(4, str(member === 3 ? o.authorizationUrl : o.tokenUrl)).string(5, str(o.description));
      vendorExtensions(w, 6, o);
    }
  }
  return new ProtoWriter().message(member, w);
}

function tag(o: JsonObject): ProtoWriter {
  const w = new ProtoWriter().string(1, str(o.name)).string(2, str(o.description));
  if (isObject(o.externalDocs)) w.message(3, externalDocs(o.externalDocs));
  vendorExtensions(w, 4, o);
  return w;
}

/** Named pairs of an object under field 1 of a wrapper message (Definitions, ParameterDefinitions, …). */
function namedMap(o: JsonObject, value: (v: JsonObject) => ProtoWriter): ProtoWriter {
  const w = new ProtoWriter();
  for (const [k, v] of Object.entries(o)) if (isObject(v)) w.message(1, new ProtoWriter().stringAlways(1, k).message(2, value(v)));
  return w;
}

/** Encodes a Swagger 2.0 document as `openapi.v2.Document`. */
export function encodeOpenApiV2(doc: JsonObject): Buffer {
  const w = new ProtoWriter().string(1, str(doc.swagger));
  if (isObject(doc.info)) w.message(2, info(doc.info));
  w.string(3, str(doc.host)).string(4, str(doc.basePath)).strings(5, strs(doc.schemes)).strings(6, strs(doc.consumes)).strings(7, strs(doc.produces));
  if (isObject(doc.paths)) w.message(8, paths(doc.paths));
  if (isObject(doc.definitions)) w.message(9, namedMap(doc.definitions, schema));
  if (isObject(doc.parameters)) w.message(10, namedMap(doc.parameters, parameter));
  if (isObject(doc.responses)) w.message(11, namedMap(doc.responses, response));
  if (Array.isArray(doc.security)) for (const s of doc.security) if (isObject(s)) w.message(12, securityRequirement(s));
  if (isObject(doc.securityDefinitions)) w.message(13, namedMap(doc.securityDefinitions, securityScheme));
  if (Array.isArray(doc.tags)) for (const t of doc.tags) if (isObject(t)) w.message(14, tag(t));
  if (isObject(doc.externalDocs)) w.message(15, externalDocs(doc.externalDocs));
  vendorExtensions(w, 16, doc);
  return w.finish();
}
