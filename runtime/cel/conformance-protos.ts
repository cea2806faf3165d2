// The cel-spec conformance protos (TestAllTypes, NestedTestAllTypes... of @bufbuild/cel-spec) as
// message types of our engine layer, and their proto3 JSON (the test data's `objectValue`s) as CEL
// values. Test support for conformance-harness.ts only: production environments declare no protos.

import { getTestRegistry } from '@bufbuild/cel-spec/testdata/registry.js';
import { createMessage, isWellKnownType, type FieldType, type MessageFieldDef, type ProtoTypes, type ScalarKind } from './messages.ts';
import { parseRfc3339 } from './time.ts';
import { celError, Duration, UnsignedInt } from './values.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** protobuf ScalarType numbers (descriptor.proto) to our scalar kinds. */
const SCALARS: Record<number, ScalarKind> = {
  1: 'double', 2: 'float', 3: 'int64', 4: 'uint64', 5: 'int32', 6: 'uint64', 7: 'uint32', 8: 'bool', 9: 'string',
  12: 'bytes', 13: 'uint32', 15: 'int32', 16: 'int64', 17: 'int32', 18: 'int64',
};
/** FeatureSet.FieldPresence: EXPLICIT and LEGACY_REQUIRED track presence; IMPLICIT (proto3 scalars) does not. */
const IMPLICIT_PRESENCE = 2;

interface DescFieldLike {
  name: string;
  jsonName: string;
  fieldKind: 'scalar' | 'enum' | 'message' | 'list' | 'map';
  scalar?: number;
  message?: { typeName: string };
  enum?: { typeName: string; values: { name: string; number: number }[] };
  listKind?: 'scalar' | 'enum' | 'message';
  mapKey?: number;
  mapKind?: 'scalar' | 'enum' | 'message';
  oneof?: { name: string };
  presence: number;
  getDefaultValue(): unknown;
}
interface DescMessageLike {
  kind: 'message';
  typeName: string;
  fields: DescFieldLike[];
}
interface DescEnumLike {
  kind: 'enum';
  typeName: string;
  values: { name: string; number: number }[];
}

const registry = getTestRegistry();
const descriptors = [...(registry as unknown as Iterable<{ kind: string; typeName: string }>)];
const messages = descriptors.filter((d): d is DescMessageLike => d.kind === 'message' && !isWellKnownType(d.typeName) && !d.typeName.startsWith('google.protobuf.'));
const enums = descriptors.filter((d): d is DescEnumLike => d.kind === 'enum' && d.typeName !== 'google.protobuf.NullValue');
const messagesByName = new Map(messages.map((m) => [m.typeName, m]));

function fieldType(f: DescFieldLike): FieldType {
  const kind = f.fieldKind === 'list' ? f.listKind : f.fieldKind === 'map' ? f.mapKind : f.fieldKind;
  if (kind === 'enum') return { kind: 'enum', enumName: f.enum!.typeName };
  if (kind === 'message') return { kind: 'message', typeName: f.message!.typeName };
  return { kind: 'scalar', scalar: SCALARS[f.scalar!] };
}

function scalarValue(kind: ScalarKind, v: unknown): unknown {
  switch (kind) {
    case 'int32':
    case 'int64':
      return BigInt(v as number | bigint | string);
    case 'uint32':
    case 'uint64':
      return new UnsignedInt(BigInt(v as number | bigint | string));
    case 'float':
    case 'double':
      return typeof v === 'string' ? Number(v === 'Infinity' || v === '-Infinity' || v === 'NaN' ? v : Number(v)) : Number(v);
    case 'bytes':
      return typeof v === 'string' ? new Uint8Array(Buffer.from(v, 'base64')) : v;
    default:
      return v;
  }
}

function fieldDef(f: DescFieldLike): MessageFieldDef {
  const type = fieldType(f);
  const def: MessageFieldDef = {
    name: f.name,
    type,
    explicitPresence: f.fieldKind === 'message' || f.oneof !== undefined || (f.presence !== IMPLICIT_PRESENCE && f.fieldKind !== 'list' && f.fieldKind !== 'map'),
  };
  if (f.fieldKind === 'list') def.repeated = true;
  if (f.fieldKind === 'map') def.mapKey = SCALARS[f.mapKey!];
  if (f.oneof) def.oneof = f.oneof.name;
  const dflt = f.fieldKind === 'scalar' || f.fieldKind === 'enum' ? f.getDefaultValue() : undefined;
  if (dflt !== undefined) def.defaultValue = type.kind === 'scalar' ? scalarValue(type.scalar, dflt) : BigInt(dflt as number);
  return def;
}

/** The conformance test protos, declared once for every conformance environment. */
export const CONFORMANCE_PROTO_TYPES: ProtoTypes = {
  messages: messages.map((m) => ({ name: m.typeName, fields: m.fields.map(fieldDef) })),
  enums: enums.map((e) => ({ name: e.typeName, values: Object.fromEntries(e.values.map((v) => [v.name, v.number])) })),
};

// ---------------------------------------------------------------------------------------------
// proto3 JSON -> CEL values

function jsonValue(v: Json): unknown {
  if (Array.isArray(v)) return v.map(jsonValue);
  if (v !== null && typeof v === 'object') return new Map(Object.entries(v).map(([k, x]) => [k, jsonValue(x)]));
  return v;
}

const WRAPPER_SCALARS: Record<string, ScalarKind> = {
  BoolValue: 'bool', BytesValue: 'bytes', DoubleValue: 'double', FloatValue: 'float', Int32Value: 'int32',
  Int64Value: 'int64', StringValue: 'string', UInt32Value: 'uint32', UInt64Value: 'uint64',
};

function durationFromJson(s: string): Duration {
  const m = /^(-?)(\d+)(?:\.(\d{1,9}))?s$/.exec(s);
  if (!m) throw celError(`bad duration ${s}`);
  const sign = m[1] ? -1 : 1;
  return new Duration(BigInt(m[2]) * BigInt(sign), Number((m[3] ?? '').padEnd(9, '0')) * sign);
}

/** A value of message type `typeName` (well-known or a conformance proto) from its proto3 JSON. */
export function fromProtoJson(typeName: string, json: Json): unknown {
  if (typeName.startsWith('google.protobuf.')) {
    const short = typeName.slice('google.protobuf.'.length);
    if (short in WRAPPER_SCALARS) return scalarValue(WRAPPER_SCALARS[short], json);
    switch (short) {
      case 'Timestamp': {
        const d = parseRfc3339(String(json), true);
        if (!d) throw celError(`bad timestamp ${String(json)}`);
        return d;
      }
      case 'Duration':
        return durationFromJson(String(json));
      case 'Struct':
      case 'Value':
      case 'ListValue':
        return jsonValue(json);
      case 'Empty':
        return new Map();
      case 'Any': {
        const o = json as { [k: string]: Json };
        const inner = String(o['@type']).replace(/^.*\//, '');
        if (inner.startsWith('google.protobuf.') && 'value' in o) return fromProtoJson(inner, o.value);
        return fromProtoJson(inner, o);
      }
    }
    throw celError(`unsupported well-known type ${typeName}`);
  }
  const desc = messagesByName.get(typeName);
  if (!desc) throw celError(`unknown message type ${typeName}`);
  const fields: [string, unknown][] = [];
  for (const [key, v] of Object.entries(json as { [k: string]: Json })) {
    if (key === '@type') continue;
    const f = desc.fields.find((x) => x.jsonName === key || x.name === key);
    if (!f) throw celError(`no field ${key} in ${typeName}`);
    fields.push([f.name, fieldFromJson(f, v)]);
  }
  return createMessage(typeName, fields);
}

function elementFromJson(f: DescFieldLike, t: FieldType, v: Json): unknown {
  if (t.kind === 'scalar') return scalarValue(t.scalar, v);
  if (t.kind === 'enum') return typeof v === 'string' ? BigInt(f.enum!.values.find((x) => x.name === v)?.number ?? 0) : BigInt(v as number);
  if (v === null && t.typeName !== 'google.protobuf.Value') return null;
  return fromProtoJson(t.typeName, v);
}

function fieldFromJson(f: DescFieldLike, v: Json): unknown {
  const t = fieldType(f);
  if (f.fieldKind === 'list') return (v as Json[]).map((x) => elementFromJson(f, t, x));
  if (f.fieldKind === 'map') {
    const key = SCALARS[f.mapKey!];
    return new Map(Object.entries(v as { [k: string]: Json }).map(([k, x]) => [key === 'bool' ? k === 'true' : key === 'string' ? k : scalarValue(key, k), elementFromJson(f, t, x)]));
  }
  return elementFromJson(f, t, v);
}

/** The CEL type a variable of a declared message type gets (well-known types as cel-go sees them). */
export function celTypeOfMessage(typeName: string): string {
  switch (typeName) {
    case 'google.protobuf.Timestamp':
    case 'google.protobuf.Duration':
      return typeName;
    case 'google.protobuf.Struct':
      return 'map<string, dyn>';
    case 'google.protobuf.ListValue':
      return 'list<dyn>';
  }
  return messagesByName.has(typeName) ? typeName : 'dyn';
}
