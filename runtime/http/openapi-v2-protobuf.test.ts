// The gnostic encoding read back with a generic protobuf wire decoder (field numbers from
// gnostic-models openapiv2/OpenAPIv2.proto). The independent check is real kubectl decoding it
// (test/e2e/kubectl-validation.test.ts).

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { encodeOpenApiV2, type Json } from './openapi-v2-protobuf.ts';
import { etagMatches, negotiateOpenApiV2, OpenApiDocuments, openApiV2Protobuf } from './openapi.ts';

type Field = { no: number; wire: number; value: bigint | Buffer };

function varint(buf: Buffer, pos: number): [bigint, number] {
  let v = 0n;
  for (let shift = 0n; ; shift += 7n) {
    const b = buf[pos++];
    if (b === undefined) throw new Error('truncated varint');
    v |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return [v, pos];
  }
}

/** Every field of one message; throws on a malformed message (bad length, unknown wire type). */
function decode(buf: Buffer): Field[] {
  const out: Field[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const [key, p] = varint(buf, pos);
    const no = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === 0) {
      const [v, q] = varint(buf, p);
      out.push({ no, wire, value: v });
      pos = q;
    } else if (wire === 1) {
      out.push({ no, wire, value: buf.subarray(p, p + 8) });
      pos = p + 8;
    } else if (wire === 2) {
      const [len, q] = varint(buf, p);
      const end = q + Number(len);
      if (end > buf.length) throw new Error('truncated field');
      out.push({ no, wire, value: buf.subarray(q, end) });
      pos = end;
    } else throw new Error(`wire type ${wire}`);
  }
  return out;
}

const all = (buf: Buffer, no: number): Field[] => decode(buf).filter((f) => f.no === no);
const one = (buf: Buffer, no: number): Buffer => {
  const f = all(buf, no);
  if (f.length !== 1 || f[0].wire !== 2) throw new Error(`expected one message field ${no}, found ${f.length}`);
  return f[0].value as Buffer;
};
const path = (buf: Buffer, ...nos: number[]): Buffer => nos.reduce(one, buf);
const text = (buf: Buffer, no: number): string[] => all(buf, no).map((f) => (f.value as Buffer).toString('utf8'));
const numbers = (buf: Buffer, no: number): number[] => all(buf, no).map((f) => (f.wire === 1 ? (f.value as Buffer).readDoubleLE() : Number(f.value as bigint)));
/** The value (field 2) of the Named* pair called `name` among the repeated field `no`. */
const named = (buf: Buffer, no: number, name: string): Buffer => {
  const hit = all(buf, no).find((f) => text(f.value as Buffer, 1)[0] === name);
  if (!hit) throw new Error(`no ${name} under field ${no}`);
  return one(hit.value as Buffer, 2);
};
const names = (buf: Buffer, no: number): string[] => all(buf, no).map((f) => text(f.value as Buffer, 1)[0]);
/** An Any's yaml (field 2) parsed back. */
const anyValue = (buf: Buffer): unknown => parseYaml(text(buf, 2)[0]);

const DOC: { [key: string]: Json } = {
  swagger: '2.0',
  info: { title: 'clusterspec', version: 'v1.33.0', license: { name: 'Apache 2.0' } },
  paths: {
    '/api/v1/namespaces/{namespace}/configmaps/{name}': {
      parameters: [
        { name: 'name', in: 'path', required: true, type: 'string', uniqueItems: true },
        { $ref: '#/parameters/namespace' },
      ],
      get: {
        operationId: 'readCoreV1NamespacedConfigMap',
        produces: ['application/json', 'application/yaml'],
        parameters: [{ name: 'limit', in: 'query', type: 'integer', minimum: -1, enum: [1, 2] }],
        responses: { '200': { description: 'OK', schema: { $ref: '#/definitions/v1.ConfigMap' } }, '401': { description: 'Unauthorized' } },
        deprecated: true,
        'x-kubernetes-action': 'get',
      },
      patch: {
        parameters: [{ name: 'body', in: 'body', required: true, schema: { type: 'object' } }],
        responses: { default: { $ref: '#/responses/err' } },
      },
    },
  },
  definitions: {
    'v1.ConfigMap': {
      type: 'object',
      required: ['data'],
      properties: {
        metadata: { allOf: [{ $ref: '#/definitions/v1.ObjectMeta' }], description: 'meta' },
        data: { type: 'object', additionalProperties: { type: 'string' } },
        closed: { type: 'object', additionalProperties: false },
        mode: { type: 'string', enum: ['on', 'Off', 'Slow'], default: 'on' },
        list: { type: 'array', items: { type: 'integer', format: 'int64', maxLength: 0 }, maxItems: 3 },
        either: { type: ['string', 'null'] },
      },
      'x-kubernetes-group-version-kind': [{ group: '', kind: 'ConfigMap', version: 'v1' }],
    },
  },
  parameters: { namespace: { name: 'namespace', in: 'path', required: true, type: 'string' } },
  securityDefinitions: { BearerToken: { type: 'apiKey', name: 'authorization', in: 'header' } },
  security: [{ BearerToken: [] }],
};

const pb = encodeOpenApiV2(DOC);
const PATH_ITEM = named(path(pb, 8), 2, '/api/v1/namespaces/{namespace}/configmaps/{name}');
const GET = one(PATH_ITEM, 2);
const CONFIGMAP = named(path(pb, 9), 1, 'v1.ConfigMap');
const prop = (name: string): Buffer => named(one(CONFIGMAP, 25), 1, name);

describe('encodeOpenApiV2', () => {
  const cases: { what: string; got: () => unknown; want: unknown }[] = [
    { what: 'Document.swagger (1)', got: () => text(pb, 1), want: ['2.0'] },
    { what: 'Info title (1), version (2), License.name (6.1)', got: () => [text(one(pb, 2), 1), text(one(pb, 2), 2), text(path(pb, 2, 6), 1)], want: [['clusterspec'], ['v1.33.0'], ['Apache 2.0']] },
    { what: 'Paths: one NamedPathItem (2), no vendor extension (1)', got: () => [names(path(pb, 8), 2), all(path(pb, 8), 1).length], want: [['/api/v1/namespaces/{namespace}/configmaps/{name}'], 0] },
    // PathItem.parameters (9): ParametersItem.parameter (1) → Parameter.non_body (2) → path sub-schema (4)
    { what: 'path parameter: required (1), in (2), name (4), type (5), uniqueItems (19)', got: () => { const p = path(all(PATH_ITEM, 9)[0].value as Buffer, 1, 2, 4); return [numbers(p, 1), text(p, 2), text(p, 4), text(p, 5), numbers(p, 19)]; }, want: [[1], ['path'], ['name'], ['string'], [1]] },
    { what: 'parameter $ref: ParametersItem.json_reference (2)._ref (1)', got: () => text(path(all(PATH_ITEM, 9)[1].value as Buffer, 2), 1), want: ['#/parameters/namespace'] },
    { what: 'Operation operationId (5), produces (6), deprecated (11)', got: () => [text(GET, 5), text(GET, 6), numbers(GET, 11)], want: [['readCoreV1NamespacedConfigMap'], ['application/json', 'application/yaml'], [1]] },
    // query sub-schema (3): allowEmptyValue at 5 shifts type to 6, minimum to 13 (double), enum to 21
    { what: 'query parameter: type (6), minimum (13, double), enum (21 Any)', got: () => { const q = path(one(GET, 8), 1, 2, 3); return [text(q, 6), numbers(q, 13), all(q, 21).map((f) => anyValue(f.value as Buffer))]; }, want: [['integer'], [-1], [1, 2]] },
    { what: 'vendor extension on Operation (13): NamedAny with Any.yaml', got: () => [names(GET, 13), anyValue(named(GET, 13, 'x-kubernetes-action'))], want: [['x-kubernetes-action'], 'get'] },
    { what: 'Responses: codes in order (1), Response.description (1), SchemaItem.schema (1)._ref (1)', got: () => { const r = one(GET, 9); return [names(r, 1), text(path(named(r, 1, '200'), 1), 1), text(path(named(r, 1, '200'), 1, 2, 1), 1)]; }, want: [['200', '401'], ['OK'], ['#/definitions/v1.ConfigMap']] },
    { what: 'response $ref: ResponseValue.json_reference (2)', got: () => text(path(named(path(one(PATH_ITEM, 8), 9), 1, 'default'), 2), 1), want: ['#/responses/err'] },
    { what: 'body parameter: Parameter.body_parameter (1) name (2), in (3), required (4), schema (5)', got: () => { const b = path(one(PATH_ITEM, 8), 8, 1, 1); return [text(b, 2), text(b, 3), numbers(b, 4), text(path(b, 5, 22), 1)]; }, want: [['body'], ['body'], [1], ['object']] },
    { what: 'Schema.type (22) TypeItem, required (19)', got: () => [text(one(CONFIGMAP, 22), 1), text(CONFIGMAP, 19)], want: [['object'], ['data']] },
    { what: 'Schema.allOf (24) with _ref (1); description (4)', got: () => [text(one(prop('metadata'), 24), 1), text(prop('metadata'), 4)], want: [['#/definitions/v1.ObjectMeta'], ['meta']] },
    { what: 'additionalProperties schema: AdditionalPropertiesItem.schema (1)', got: () => text(path(prop('data'), 21, 1, 22), 1), want: ['string'] },
    { what: 'additionalProperties false: AdditionalPropertiesItem.boolean (2) written as 0', got: () => decode(one(prop('closed'), 21)).map((f) => [f.no, f.wire, Number(f.value as bigint)]), want: [[2, 0, 0]] },
    { what: 'enum (20) and default (5) as Any; YAML 1.1 quoting keeps "on"/"Off" strings', got: () => [all(prop('mode'), 20).map((f) => text(f.value as Buffer, 2)[0]), anyValue(one(prop('mode'), 5))], want: [['"on"\n', '"Off"\n', 'Slow\n'], 'on'] },
    { what: 'items (23) ItemsItem.schema (1): format (2); maxItems (14); zero maxLength left out', got: () => { const i = path(prop('list'), 23, 1); return [text(i, 2), numbers(prop('list'), 14), all(i, 11).length]; }, want: [['int64'], [3], 0] },
    { what: 'type as a list: TypeItem.value repeated', got: () => text(one(prop('either'), 22), 1), want: ['string', 'null'] },
    { what: 'x-kubernetes-group-version-kind on a definition (31)', got: () => anyValue(named(CONFIGMAP, 31, 'x-kubernetes-group-version-kind')), want: [{ group: '', kind: 'ConfigMap', version: 'v1' }] },
    { what: 'ParameterDefinitions (10): NamedParameter → non_body → path', got: () => text(path(named(path(pb, 10), 1, 'namespace'), 2, 4), 4), want: ['namespace'] },
    { what: 'SecurityDefinitions (13): api_key_security (2) type, name, in', got: () => { const k = path(named(path(pb, 13), 1, 'BearerToken'), 2); return [text(k, 1), text(k, 2), text(k, 3)]; }, want: [['apiKey'], ['authorization'], ['header']] },
    { what: 'security (12): SecurityRequirement → NamedStringArray', got: () => names(one(pb, 12), 1), want: ['BearerToken'] },
    { what: 'fields in number order (Go marshals so)', got: () => decode(pb).map((f) => f.no), want: [1, 2, 8, 9, 10, 12, 13] },
  ];
  it.each(cases)('$what', ({ got, want }) => {
    expect(got()).toEqual(want);
  });
});

describe('the served v2 document', () => {
  const docs = OpenApiDocuments.load(join(import.meta.dirname, '..', '..', 'out', 'openapi'));
  const v2 = docs.v2;
  it('encodes every definition and path, with GVK extensions, and is cached per document', () => {
    expect(v2).toBeDefined();
    if (!v2) return;
    const json = JSON.parse(v2.body.toString('utf8')) as { definitions: Record<string, { 'x-kubernetes-group-version-kind'?: unknown }>; paths: Record<string, unknown> };
    const doc = openApiV2Protobuf(v2);
    expect(openApiV2Protobuf(v2)).toBe(doc);
    expect(names(path(doc, 9), 1)).toEqual(Object.keys(json.definitions));
    expect(names(path(doc, 8), 2)).toEqual(Object.keys(json.paths));
    for (const [name, def] of Object.entries(json.definitions)) {
      const gvk = def['x-kubernetes-group-version-kind'];
      if (gvk !== undefined) expect(anyValue(named(named(path(doc, 9), 1, name), 31, 'x-kubernetes-group-version-kind'))).toEqual(gvk);
    }
  });
});

describe('negotiateOpenApiV2 and etagMatches', () => {
  const accepts: [string | undefined, string | undefined][] = [
    [undefined, 'application/json'],
    ['*/*', 'application/json'],
    ['application/json', 'application/json'],
    ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf'],
    ['application/com.github.proto-openapi.spec.v2.v1.0+protobuf', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf'],
    ['application/json;q=0.5, application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf'],
    ['*/*, application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf'],
    ['application/yaml', undefined],
    ['application/vnd.kubernetes.protobuf', undefined],
  ];
  it.each(accepts)('Accept %s → %s', (accept, want) => {
    expect(negotiateOpenApiV2(accept)?.contentType).toBe(want);
  });
  const tags: [string | undefined, boolean][] = [
    [undefined, false],
    ['"ABC"', true],
    ['W/"ABC"', true],
    ['"X", "ABC"', true],
    ['*', true],
    ['"ABCD"', false],
  ];
  it.each(tags)('If-None-Match %s → %s', (header, want) => {
    expect(etagMatches(header, '"ABC"')).toBe(want);
  });
});
