// Protobuf-style message types for CEL: the well-known types cel-go always knows (wrappers, Struct,
// Value, ListValue, Any, Timestamp, Duration, Empty) and message/enum types an environment declares
// (the cel-spec conformance run declares its test protos). A message literal `T{f: v}` (rewritten by
// message-syntax.ts into `_message_literal('T', 'f', v)`) is type-checked and built here; message
// values read unset fields as their defaults and report presence as protobuf does (has()).
// Separate as cel-go keeps its message support in common/types/pb.

import type { CelRegistrar, MacroChecker, MacroContext, MacroEvaluator, MacroNode, MacroType } from './registrar.ts';
import { durationString, timestampString } from './library/time-bytes.ts';
import { timestampFromNanos } from './time.ts';
import { celError, CelObject, Duration, Optional, UnsignedInt } from './values.ts';

export type ScalarKind = 'int32' | 'int64' | 'uint32' | 'uint64' | 'float' | 'double' | 'bool' | 'string' | 'bytes';

/** The type of a field (of a list field: its elements; of a map field: its values). */
export type FieldType = { kind: 'scalar'; scalar: ScalarKind } | { kind: 'enum'; enumName: string } | { kind: 'message'; typeName: string };

export interface MessageFieldDef {
  name: string;
  type: FieldType;
  repeated?: boolean;
  /** Set for map fields: the key's scalar kind. */
  mapKey?: ScalarKind;
  /** has() reports whether the field was set (proto2 scalars, messages, oneof members), not whether it differs from zero. */
  explicitPresence: boolean;
  oneof?: string;
  /** The value an unset scalar or enum field reads as (proto2 `[default = ...]`); zero otherwise. */
  defaultValue?: unknown;
}

export interface MessageTypeDef {
  name: string;
  fields: MessageFieldDef[];
}

export interface EnumTypeDef {
  name: string;
  values: Record<string, number>;
}

/** Message and enum types an environment declares (EnvSpec.protoTypes). */
export interface ProtoTypes {
  messages: MessageTypeDef[];
  enums: EnumTypeDef[];
}

// ---------------------------------------------------------------------------------------------
// Well-known types

const WRAPPERS: Record<string, ScalarKind> = {
  'google.protobuf.BoolValue': 'bool',
  'google.protobuf.BytesValue': 'bytes',
  'google.protobuf.DoubleValue': 'double',
  'google.protobuf.FloatValue': 'float',
  'google.protobuf.Int32Value': 'int32',
  'google.protobuf.Int64Value': 'int64',
  'google.protobuf.StringValue': 'string',
  'google.protobuf.UInt32Value': 'uint32',
  'google.protobuf.UInt64Value': 'uint64',
};
const TIMESTAMP = 'google.protobuf.Timestamp';
const DURATION = 'google.protobuf.Duration';
const STRUCT = 'google.protobuf.Struct';
const VALUE = 'google.protobuf.Value';
const LIST_VALUE = 'google.protobuf.ListValue';
const ANY = 'google.protobuf.Any';
const EMPTY = 'google.protobuf.Empty';

/** Fields of the well-known types a literal may set. */
const WKT_FIELDS: Record<string, Record<string, string>> = {
  [TIMESTAMP]: { seconds: 'int', nanos: 'int' },
  [DURATION]: { seconds: 'int', nanos: 'int' },
  [STRUCT]: { fields: 'map<string, dyn>' },
  [VALUE]: { null_value: 'dyn', number_value: 'double', string_value: 'string', bool_value: 'bool', struct_value: 'map<string, dyn>', list_value: 'list<dyn>' },
  [LIST_VALUE]: { values: 'list<dyn>' },
  [ANY]: { type_url: 'string', value: 'bytes' },
  [EMPTY]: {},
};
for (const [name, scalar] of Object.entries(WRAPPERS)) WKT_FIELDS[name] = { value: celTypeOfScalar(scalar) };

/** The CEL type a value of a well-known type has once built (wrappers are their primitive; cel-go also accepts null). */
const WKT_CEL_TYPE: Record<string, string> = {
  [TIMESTAMP]: TIMESTAMP,
  [DURATION]: DURATION,
  [STRUCT]: 'map<string, dyn>',
  [VALUE]: 'dyn',
  [LIST_VALUE]: 'list<dyn>',
  [ANY]: 'dyn',
  [EMPTY]: 'map<string, dyn>',
};
// a wrapper literal is its primitive, but cel-go types it wrapper(T), which also compares with null
for (const name of Object.keys(WRAPPERS)) WKT_CEL_TYPE[name] = 'dyn';

function celTypeOfScalar(s: ScalarKind): string {
  switch (s) {
    case 'int32':
    case 'int64':
      return 'int';
    case 'uint32':
    case 'uint64':
      return 'uint';
    case 'float':
    case 'double':
      return 'double';
    default:
      return s;
  }
}

export function isWellKnownType(name: string): boolean {
  return name in WKT_FIELDS;
}

// ---------------------------------------------------------------------------------------------
// Declared types (global by full name, as protobuf names are)

const messageDefs = new Map<string, MessageTypeDef>();
const enumValues = new Map<string, number>();
const messageClasses = new Map<string, typeof MessageValue>();

/** Registers declared message and enum types (idempotent per name). */
export function declareProtoTypes(types: ProtoTypes): void {
  for (const m of types.messages) if (!messageDefs.has(m.name)) messageDefs.set(m.name, m);
  for (const e of types.enums) for (const [k, v] of Object.entries(e.values)) enumValues.set(`${e.name}.${k}`, v);
}

export function messageDef(name: string): MessageTypeDef | undefined {
  return messageDefs.get(name);
}

/** Whether any enum constant can resolve (declared enums, or the well-known NullValue). */
export function mayNameEnumConstant(src: string): boolean {
  return enumValues.size > 0 || src.includes('NULL_VALUE');
}

/** The value of an enum constant by full name (`pkg.Enum.VALUE`), if declared. */
export function enumConstant(fullName: string): number | undefined {
  if (fullName === 'google.protobuf.NullValue.NULL_VALUE') return 0;
  return enumValues.get(fullName);
}

/** Whether a full name is a message type a literal can build. */
export function isMessageTypeName(fullName: string): boolean {
  return isWellKnownType(fullName) || messageDefs.has(fullName);
}

/** The CEL field types of a declared message as the engine's registerType wants them. */
export function engineFieldTypes(def: MessageTypeDef): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of def.fields) {
    const elem = celTypeOfField(f.type);
    out[f.name] = f.mapKey ? `map<${celTypeOfScalar(f.mapKey)}, ${elem}>` : f.repeated ? `list<${elem}>` : elem;
  }
  return out;
}

function celTypeOfField(t: FieldType): string {
  if (t.kind === 'scalar') return celTypeOfScalar(t.scalar);
  if (t.kind === 'enum') return 'int';
  // wrappers read as null when unset, so they are dyn (cel-go types them wrapper(T), assignable from T and null)
  if (t.typeName === TIMESTAMP || t.typeName === DURATION) return t.typeName;
  return 'dyn';
}

// ---------------------------------------------------------------------------------------------
// Message values

/** A message: set fields are Map entries; unset ones read as their default; has() is presence. */
export class MessageValue extends CelObject {
  static def: MessageTypeDef = { name: 'message', fields: [] };

  /** Every declared field's value (set or default): for equality with the engine's `get`. */
  override get(field: string): unknown {
    if (super.has(field)) return super.get(field);
    const f = (this.constructor as typeof MessageValue).def.fields.find((x) => x.name === field);
    return f ? defaultOf(f) : undefined;
  }

  /** Whether the field is set (protobuf presence: what has() reports). */
  override has(field: string): boolean {
    return super.has(field);
  }
}

/** The runtime class of a declared message type (the same class in every environment). */
export function messageClass(name: string): typeof MessageValue {
  const cached = messageClasses.get(name);
  if (cached) return cached;
  const def = messageDefs.get(name);
  if (!def) throw new Error(`unknown message type ${name}`);
  const ctor = { [name]: class extends MessageValue {} }[name];
  ctor.typeName = name;
  ctor.def = def;
  messageClasses.set(name, ctor);
  return ctor;
}

function zeroOfScalar(s: ScalarKind): unknown {
  switch (s) {
    case 'int32':
    case 'int64':
      return 0n;
    case 'uint32':
    case 'uint64':
      return new UnsignedInt(0n);
    case 'float':
    case 'double':
      return 0;
    case 'bool':
      return false;
    case 'string':
      return '';
    case 'bytes':
      return new Uint8Array(0);
  }
}

function defaultOf(f: MessageFieldDef): unknown {
  if (f.mapKey) return new Map();
  if (f.repeated) return [];
  const t = f.type;
  if (t.kind === 'scalar') return f.defaultValue ?? zeroOfScalar(t.scalar);
  if (t.kind === 'enum') return f.defaultValue ?? 0n;
  return defaultOfMessage(t.typeName);
}

function defaultOfMessage(name: string): unknown {
  if (name in WRAPPERS || name === VALUE || name === ANY) return null;
  if (name === STRUCT || name === EMPTY) return new Map();
  if (name === LIST_VALUE) return [];
  if (name === TIMESTAMP) return timestampFromNanos(0n);
  if (name === DURATION) return new Duration(0n, 0);
  return new (messageClass(name))();
}

function isZero(v: unknown): boolean {
  if (v === 0n || v === 0 || v === false || v === '') return !Object.is(v, -0);
  if (v instanceof UnsignedInt) return v.valueOf() === 0n;
  if (v instanceof Uint8Array) return v.length === 0;
  return false;
}

// ---------------------------------------------------------------------------------------------
// Conversions of CEL values into field values

const INT32_MIN = -2147483648n;
const INT32_MAX = 2147483647n;
const UINT32_MAX = 4294967295n;

function typeMismatch(what: string, v: unknown): Error {
  return celError(`no such overload: ${what} cannot hold ${v === null ? 'null' : typeof v === 'object' ? (v.constructor?.name ?? 'object') : typeof v}`);
}

function toScalar(s: ScalarKind, v: unknown): unknown {
  switch (s) {
    case 'int32':
    case 'int64':
      if (typeof v !== 'bigint') throw typeMismatch(s, v);
      if (s === 'int32' && (v < INT32_MIN || v > INT32_MAX)) throw celError('range error: int32 field out of range');
      return v;
    case 'uint32':
    case 'uint64':
      if (!(v instanceof UnsignedInt)) throw typeMismatch(s, v);
      if (s === 'uint32' && v.valueOf() > UINT32_MAX) throw celError('range error: uint32 field out of range');
      return v;
    case 'float':
      if (typeof v !== 'number') throw typeMismatch(s, v);
      return Math.fround(v);
    case 'double':
      if (typeof v !== 'number') throw typeMismatch(s, v);
      return v;
    case 'bool':
      if (typeof v !== 'boolean') throw typeMismatch(s, v);
      return v;
    case 'string':
      if (typeof v !== 'string') throw typeMismatch(s, v);
      return v;
    case 'bytes':
      if (!(v instanceof Uint8Array)) throw typeMismatch(s, v);
      return v;
  }
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A CEL value as a google.protobuf.Value (JSON): numbers become doubles, large 64-bit ints strings. */
export function toJsonValue(v: unknown): unknown {
  if (v === null || typeof v === 'boolean' || typeof v === 'string' || typeof v === 'number') return v;
  if (typeof v === 'bigint') return v > MAX_SAFE || v < -MAX_SAFE ? v.toString() : Number(v);
  if (v instanceof UnsignedInt) return v.valueOf() > MAX_SAFE ? v.valueOf().toString() : Number(v.valueOf());
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (v instanceof Date) return timestampString(v);
  if (v instanceof Duration) return durationString(v);
  if (Array.isArray(v)) return v.map(toJsonValue);
  if (v instanceof MessageValue) throw celError(`no such overload: ${v.celTypeName} is not a JSON value`);
  if (v instanceof Map || (typeof v === 'object' && v.constructor === Object)) return toJsonStruct(v);
  throw typeMismatch('google.protobuf.Value', v);
}

function toJsonStruct(v: unknown): Map<string, unknown> {
  const entries = v instanceof Map ? [...v] : Object.entries(v as object);
  const out = new Map<string, unknown>();
  for (const [k, x] of entries) {
    if (typeof k !== 'string') throw celError('bad key type: google.protobuf.Struct keys must be strings');
    out.set(k, toJsonValue(x));
  }
  return out;
}

/** The value a message field of type `t` holds for CEL value `v` (undefined: the field stays unset). */
function toFieldElement(t: FieldType, v: unknown): unknown {
  if (t.kind === 'scalar') return toScalar(t.scalar, v);
  if (t.kind === 'enum') {
    if (typeof v !== 'bigint') throw typeMismatch('enum', v);
    if (v < INT32_MIN || v > INT32_MAX) throw celError('range error: enum value out of range');
    return v;
  }
  const name = t.typeName;
  if (name in WRAPPERS) return v === null ? undefined : toScalar(WRAPPERS[name], v);
  if (name === VALUE) return toJsonValue(v);
  if (v === null) {
    if (name === STRUCT || name === LIST_VALUE) throw celError('unsupported field type: null for a repeated or struct field');
    return undefined;
  }
  if (name === ANY) return v;
  if (name === STRUCT) {
    if (!(v instanceof Map) && !(typeof v === 'object' && (v as object).constructor === Object)) throw typeMismatch(name, v);
    return toJsonStruct(v);
  }
  if (name === EMPTY) return new Map();
  if (name === LIST_VALUE) {
    if (!Array.isArray(v)) throw typeMismatch(name, v);
    return v.map(toJsonValue);
  }
  if (name === TIMESTAMP) {
    if (!(v instanceof Date)) throw typeMismatch(name, v);
    return v;
  }
  if (name === DURATION) {
    if (!(v instanceof Duration)) throw typeMismatch(name, v);
    return v;
  }
  if (!(v instanceof MessageValue) || v.celTypeName !== name) throw typeMismatch(name, v);
  return v;
}

function toFieldValue(f: MessageFieldDef, v: unknown): unknown {
  if (f.mapKey) {
    if (v === null) throw celError('unsupported field type: null for a map field');
    const entries = v instanceof Map ? [...v] : typeof v === 'object' && (v as object).constructor === Object ? Object.entries(v as object) : undefined;
    if (!entries) throw typeMismatch('map field', v);
    const out = new Map<unknown, unknown>();
    for (const [k, x] of entries) {
      const key = toScalar(f.mapKey, typeof k === 'string' && f.mapKey !== 'string' ? keyFromString(f.mapKey, k) : k);
      out.set(key, toFieldElement(f.type, x) ?? null);
    }
    return out.size === 0 ? undefined : out;
  }
  if (f.repeated) {
    if (!Array.isArray(v)) throw v === null ? celError('unsupported field type: null for a repeated field') : typeMismatch('repeated field', v);
    const out = v.map((x) => toFieldElement(f.type, x) ?? null);
    return out.length === 0 ? undefined : out;
  }
  if (v === null && f.type.kind !== 'message') throw celError(`unsupported field type: null for ${f.name}`);
  const x = toFieldElement(f.type, v);
  if (x !== undefined && !f.explicitPresence && isZero(x)) return undefined;
  return x;
}

/** Map literals with int/bool keys may still carry string keys (plain objects). */
function keyFromString(kind: ScalarKind, k: string): unknown {
  if (kind === 'bool') return k === 'true';
  if (kind === 'uint32' || kind === 'uint64') return new UnsignedInt(BigInt(k));
  return BigInt(k);
}

/** Builds a declared message from field values (CEL values); errors as cel-go reports them at run time. */
export function createMessage(name: string, fields: Iterable<[string, unknown]>): MessageValue {
  const ctor = messageClass(name);
  const def = ctor.def;
  const msg = new ctor();
  for (const [fieldName, value] of fields) {
    const f = def.fields.find((x) => x.name === fieldName);
    if (!f) throw celError(`no such field: ${name}.${fieldName}`);
    const stored = toFieldValue(f, value);
    if (f.oneof) for (const other of def.fields) if (other.oneof === f.oneof) msg.delete(other.name);
    if (stored === undefined) msg.delete(f.name);
    else msg.set(f.name, stored);
  }
  return msg;
}

/** Builds a well-known type from a literal's fields: wrappers unwrap, Struct/Value/ListValue become JSON values. */
export function createWellKnown(name: string, fields: Map<string, unknown>): unknown {
  if (name in WRAPPERS) {
    const v = fields.get('value');
    return v === undefined ? zeroOfScalar(WRAPPERS[name]) : toScalar(WRAPPERS[name], v);
  }
  switch (name) {
    case STRUCT:
      return toFieldElement({ kind: 'message', typeName: STRUCT }, fields.get('fields') ?? new Map());
    case LIST_VALUE:
      return toFieldElement({ kind: 'message', typeName: LIST_VALUE }, fields.get('values') ?? []);
    case EMPTY:
      return new Map();
    case VALUE: {
      if (fields.size > 1) throw celError('google.protobuf.Value sets more than one kind');
      const [kind, v] = [...fields][0] ?? ['null_value', null];
      if (kind === 'null_value') return null;
      if (kind === 'struct_value') return toJsonStruct(v);
      if (kind === 'list_value') return toJsonValue(v);
      return v;
    }
    case TIMESTAMP:
    case DURATION: {
      const seconds = (fields.get('seconds') as bigint | undefined) ?? 0n;
      const nanos = (fields.get('nanos') as bigint | undefined) ?? 0n;
      if (name === DURATION) return new Duration(seconds, Number(nanos));
      return timestampFromNanos(seconds * 1_000_000_000n + nanos);
    }
    case ANY:
      // an Any literal carries serialized protobuf bytes, which this layer does not decode
      throw celError('conversion error: google.protobuf.Any literals are not supported');
  }
  throw celError(`unknown message type ${name}`);
}

// ---------------------------------------------------------------------------------------------
// The literal macro: `_message_literal('T', 'f1', v1, '?f2', v2, ...)`

interface LiteralState {
  typeName: string;
  fields: { name: string; optional: boolean; value: MacroNode }[];
}

function literalString(n: MacroNode): string | undefined {
  const node = n as unknown as { op: string; args: unknown };
  return node.op === 'value' && typeof node.args === 'string' ? node.args : undefined;
}

const messageLiteral = {
  expand(args: MacroNode[]): LiteralState {
    const typeName = literalString(args[0]);
    if (typeName === undefined) throw celError('message literal without a type name');
    const fields: LiteralState['fields'] = [];
    for (let i = 1; i + 1 < args.length; i += 2) {
      const raw = literalString(args[i]);
      if (raw === undefined) throw celError('message literal field names must be identifiers');
      fields.push({ name: raw.replace(/^\?/, ''), optional: raw.startsWith('?'), value: args[i + 1] });
    }
    return { typeName, fields };
  },
  typeCheck(chk: MacroChecker, s: LiteralState, ctx: MacroContext): MacroType {
    const def = messageDefs.get(s.typeName);
    const wkt = WKT_FIELDS[s.typeName];
    const declared = def ? engineFieldTypes(def) : wkt;
    if (!declared) throw chk.createError('undeclared_reference', `undeclared reference to '${s.typeName}'`, s.fields[0]?.value ?? ({} as MacroNode));
    for (const f of s.fields) {
      if (!(f.name in declared)) throw chk.createError('no_such_field', `undefined field '${f.name}' of ${s.typeName}`, f.value);
      const t = chk.check(f.value, ctx);
      if (f.optional && t.kind !== 'optional' && t.kind !== 'dyn')
        throw chk.createError('optional_expected', `optional field '${f.name}' needs an optional value, got '${t.name}'`, f.value);
    }
    return chk.getType(def ? s.typeName : WKT_CEL_TYPE[s.typeName]);
  },
  evaluate(ev: MacroEvaluator, s: LiteralState, ctx: MacroContext): unknown {
    const values = new Map<string, unknown>();
    for (const f of s.fields) {
      let v = ev.run(f.value, ctx);
      if (f.optional) {
        if (!(v instanceof Optional)) throw celError(`optional field '${f.name}' needs an optional value`);
        if (!v.hasValue()) continue;
        v = v.value();
      }
      values.set(f.name, v);
    }
    return messageDefs.has(s.typeName) ? createMessage(s.typeName, values) : createWellKnown(s.typeName, values);
  },
};

/** The engine caps call arguments at 32: a type name and up to 15 field initializers. */
const MAX_LITERAL_ARGS = 31;

/** Installs the message literal macro (every environment: cel-go knows the well-known types everywhere). */
export function messagesLibrary(r: CelRegistrar): void {
  for (let n = 1; n <= MAX_LITERAL_ARGS; n += 2) r.macro('_message_literal', n, false, messageLiteral);
}
