// Runs the cel-spec conformance data (@bufbuild/cel-spec) through our engine layer and reports
// each test's outcome (shared by conformance.test.ts and ad-hoc investigation scripts). Environments
// are configured as cel-go's conformance runner configures its own: the math, encoders and block extensions,
// no homogeneous-literal rule, the test protos (conformance-protos.ts) and each test's container.
// Kubernetes' rule environment differs; the classification below says which differences matter to it.

import { tests } from '@bufbuild/cel-spec/testdata/conformance.js';
import type { SerializedIncrementalTestSuite } from '@bufbuild/cel-spec/testdata/tests.js';
import { CelEnvironment, celEquals, UnsignedInt } from './engine.ts';
import { celTypeOfMessage, CONFORMANCE_PROTO_TYPES, fromProtoJson } from './conformance-protos.ts';
import { timestampString } from './library/time-bytes.ts';
import { CelObject } from './values.ts';
import './libraries.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObj = { [k: string]: Json };

class Unsupported extends Error {}

/** An expected type value (`int`, `list`...): compared with the engine's type value by name. */
class TypeName {
  constructor(readonly name: string) {}
}

export interface Outcome {
  /** `<file>/<section>/<test>` */
  name: string;
  section: string;
  expr: string;
  pass: boolean;
  /** The test asks to skip type-checking (cel-go's checker rejects the expression). */
  disableCheck: boolean;
  /** What went wrong: unsupported input, compile error, wrong value, missing error. */
  why?: string;
}

function typeOf(t: Json | undefined): string {
  if (!t || typeof t !== 'object' || Array.isArray(t)) return 'dyn';
  const o = t as JsonObj;
  if (typeof o.primitive === 'string') {
    const m: Record<string, string> = { INT64: 'int', UINT64: 'uint', DOUBLE: 'double', STRING: 'string', BOOL: 'bool', BYTES: 'bytes' };
    return m[o.primitive] ?? 'dyn';
  }
  if (o.listType) return `list<${typeOf((o.listType as JsonObj).elemType)}>`;
  if (o.mapType) return `map<${typeOf((o.mapType as JsonObj).keyType)}, ${typeOf((o.mapType as JsonObj).valueType)}>`;
  if (o.wellKnown === 'TIMESTAMP') return 'google.protobuf.Timestamp';
  if (o.wellKnown === 'DURATION') return 'google.protobuf.Duration';
  if ('null' in o) return 'null';
  if (typeof o.messageType === 'string') return celTypeOfMessage(o.messageType);
  return 'dyn';
}

function toValue(v: Json | undefined): unknown {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Unsupported('value');
  const o = v as JsonObj;
  if ('int64Value' in o) return BigInt(o.int64Value as string);
  if ('uint64Value' in o) return new UnsignedInt(BigInt(o.uint64Value as string));
  if ('doubleValue' in o) {
    const d = o.doubleValue;
    return typeof d === 'string' ? (d === 'NaN' ? Number.NaN : d === 'Infinity' ? Infinity : -Infinity) : d;
  }
  if ('stringValue' in o) return o.stringValue;
  if ('boolValue' in o) return o.boolValue;
  if ('bytesValue' in o) return new Uint8Array(Buffer.from(o.bytesValue as string, 'base64'));
  if ('nullValue' in o) return null;
  if ('listValue' in o) return (((o.listValue as JsonObj).values as Json[] | undefined) ?? []).map(toValue);
  if ('mapValue' in o) {
    const m = new Map<unknown, unknown>();
    for (const e of ((o.mapValue as JsonObj).entries as JsonObj[] | undefined) ?? []) m.set(toValue(e.key), toValue(e.value));
    return m;
  }
  if ('typeValue' in o) return new TypeName(String(o.typeValue));
  if ('objectValue' in o) {
    const any = o.objectValue as JsonObj;
    const t = String(any['@type'] ?? '').replace(/^.*\//, '');
    // well-known types carry their JSON in `value`; messages carry their fields beside `@type`
    return fromProtoJson(t, t.startsWith('google.protobuf.') && 'value' in any ? any.value : any);
  }
  throw new Unsupported('value kind');
}

/** CEL type names the engine spells differently (the type value is the same: `type(null) == null_type` holds). */
const ENGINE_TYPE_NAMES: Record<string, string> = { null_type: 'null' };

function sameValue(got: unknown, want: unknown): boolean {
  if (want instanceof CelObject) return celEquals(got, want);
  if (want instanceof TypeName) return typeof got === 'object' && got !== null && String(got) === `Type<${ENGINE_TYPE_NAMES[want.name] ?? want.name}>`;
  if (typeof got === 'number' && typeof want === 'number' && Number.isNaN(got) && Number.isNaN(want)) return true;
  if (typeof got !== typeof want && !(got instanceof UnsignedInt) && !(want instanceof UnsignedInt)) return false;
  if (got instanceof UnsignedInt !== want instanceof UnsignedInt) return false;
  if (Array.isArray(got) && Array.isArray(want)) return got.length === want.length && got.every((g, i) => sameValue(g, want[i]));
  if (typeof got === 'object' && got !== null && typeof want === 'object' && want !== null && !Array.isArray(got)) {
    const g = got instanceof Map ? got : new Map(Object.entries(got));
    const w = want instanceof Map ? want : new Map(Object.entries(want));
    if (!(want instanceof Map)) return celEquals(got, want);
    if (g.size !== w.size) return false;
    for (const [k, v] of w) {
      let found = false;
      for (const [gk, gv] of g) if (celEquals(gk, k) || String(gk) === String(k)) { found = sameValue(gv, v); break; }
      if (!found) return false;
    }
    return true;
  }
  return celEquals(got, want);
}

export function show(v: unknown): string {
  if (v instanceof UnsignedInt) return `${v.valueOf()}u`;
  if (typeof v === 'bigint') return `${v}`;
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') return Number.isInteger(v) ? `${v}.0` : String(v);
  if (v instanceof Uint8Array) return `b${JSON.stringify(Buffer.from(v).toString('latin1'))}`;
  if (Array.isArray(v)) return `[${v.map(show).join(', ')}]`;
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `${show(k)}: ${show(x)}`).join(', ')}}`;
  if (v instanceof Date) return `timestamp(${timestampString(v)})`;
  if (v instanceof TypeName) return `type(${v.name})`;
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  if (typeof v === 'object' && v.constructor) return `${v.constructor.name}(${String(v)})`;
  return String(v);
}

function errText(e: unknown): string {
  const err = e as { summary?: string; message?: string };
  return (err?.summary ?? err?.message ?? String(e)).split('\n')[0];
}

/** Extensions cel-go's conformance runner enables that Kubernetes does not (installed by libraries.ts). */
const CONFORMANCE_EXTENSIONS = ['math', 'encoders', 'block'];

/** Returns undefined on pass, or the reason for the failure. */
function runOne(o: JsonObj): string | undefined {
  const vars: Record<string, string> = {};
  for (const d of (o.typeEnv as JsonObj[] | undefined) ?? []) {
    if (d.ident) vars[String(d.name)] = typeOf((d.ident as JsonObj).type);
    else throw new Unsupported('function decl');
  }
  const bindings: Record<string, unknown> = {};
  for (const [k, b] of Object.entries((o.bindings as JsonObj | undefined) ?? {})) {
    bindings[k] = toValue((b as JsonObj).value);
    vars[k] ??= 'dyn';
  }
  // cel-go's conformance environment: its extensions on, aggregate literals not required to be homogeneous
  const env = new CelEnvironment({
    variables: vars,
    extensions: CONFORMANCE_EXTENSIONS,
    homogeneousAggregateLiterals: false,
    protoTypes: CONFORMANCE_PROTO_TYPES,
    ...(o.container ? { container: String(o.container) } : {}),
  });
  const wantsError = 'evalError' in o;
  let compiled;
  try {
    compiled = env.compile(String(o.expr));
  } catch (e) {
    return wantsError ? undefined : `compile error: ${errText(e)}`;
  }
  if (o.checkOnly) return undefined;
  let got: unknown;
  try {
    got = compiled.evaluate(bindings, 10_000_000);
  } catch (e) {
    return wantsError ? undefined : `eval error: ${errText(e)}`;
  }
  if (wantsError) return `no error, got ${show(got)}`;
  let want: unknown = true;
  if ('value' in o) want = toValue(o.value);
  else if ('typedResult' in o) want = toValue((o.typedResult as JsonObj).result);
  if ('value' in o || 'typedResult' in o ? sameValue(got, want) : got === true) return undefined;
  return `got ${show(got)}, want ${show(want)}`;
}

function collect(s: SerializedIncrementalTestSuite, path: string, out: Outcome[]): void {
  for (const t of s.tests ?? []) {
    const o = t.original as unknown as JsonObj;
    const name = `${path}/${String(o.name)}`;
    const section = path.split('/').slice(1, 3).join('/');
    let why: string | undefined;
    try {
      why = runOne(o);
    } catch (e) {
      why = `unsupported: ${(e as Error).message}`;
    }
    out.push({ name, section, expr: String(o.expr), pass: why === undefined, disableCheck: o.disableCheck === true, ...(why === undefined ? {} : { why }) });
  }
  for (const sub of s.suites ?? []) collect(sub, `${path}/${sub.name}`, out);
}

export function runConformance(): Outcome[] {
  const out: Outcome[] = [];
  collect(tests, tests.name, out);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Classification of failures: does the difference change the verdict of a validation rule?
// A rule is a bool expression over self/oldSelf, whose values come from a structural schema (int,
// double, string, bool, bytes, list, map, object, timestamp, duration, dyn; never uint, protobuf
// messages, wrappers or enums), compiled by a checker with Kubernetes' options
// (HomogeneousAggregateLiterals + its validator, CrossTypeNumericComparisons, OptionalTypes) and the
// Kubernetes libraries (no math, encoders, block, bindings or protos extensions).

export interface FailureClass {
  category: string;
  verdictChanging: boolean;
  reason: string;
  match: (o: Outcome) => boolean;
}

/** cel-go's own conformance skip list (tests/simple/BUILD.bazel): upstream behaves as we do. */
const CEL_GO_SKIPS = [
  'fields/qualified_identifier_resolution/map_key_float',
  'fields/qualified_identifier_resolution/map_key_null',
  'fields/qualified_identifier_resolution/map_value_repeat_key',
  'timestamps/duration_converters/get_milliseconds',
  'optionals/optionals/map_optional_select_has',
  'string_ext/value_errors/indexof_out_of_range',
  'string_ext/value_errors/lastindexof_out_of_range',
  'type_deductions/wrappers/wrapper_promotion_2',
  'type_deductions/legacy_nullable_types/',
];

const PROTO_SECTIONS = /^(proto2|proto3|proto2_ext|enums|wrappers|dynamic)\//;
const PROTO_EXPR = /TestAllTypes|google\.protobuf\.[A-Z]|NestedTestAllTypes|GlobalEnum|\bmsg\b/;
const UNENABLED_EXTS = /^(math_ext|block_ext|encoders_ext|bindings_ext|network_ext|proto_ext)\//;
const HOMOGENEOUS = /List elements must have the same type|Map key uses wrong type|Map value uses wrong type|no such overload: list<\w+> == list<\w+>|_optional_map_entry/;
const UINT = /\d+u\b|\buint\(|\bu\)|UInt/;

/** First match wins; the last entry catches everything else as verdict-changing. */
export const FAILURE_CLASSES: FailureClass[] = [
  {
    category: 'protobuf-only features: serialized Any literals, strong enum types, proto2 extensions, FieldMask',
    verdictChanging: false,
    reason: 'messages.ts builds the test protos and well-known types, but not these; rules see JSON-derived values only, never protobuf messages',
    match: (o) => PROTO_SECTIONS.test(o.section) || PROTO_EXPR.test(o.expr),
  },
  {
    category: 'extensions Kubernetes does not enable (math, encoders, cel.block)',
    verdictChanging: false,
    reason: 'installed as opt-in extensions for this run only; the Kubernetes CEL environment has none of them, so such rules fail to compile upstream too',
    match: (o) => UNENABLED_EXTS.test(o.section),
  },
  {
    category: 'container-qualified names',
    verdictChanging: false,
    reason: 'Kubernetes compiles rules with no container, so `y` never resolves to a declared `x.y`',
    match: (o) => o.section.startsWith('namespace/'),
  },
  {
    category: "cel-go's own skip list",
    verdictChanging: false,
    reason: 'cel-go (what Kubernetes runs) skips these tests because it behaves as we do',
    match: (o) => CEL_GO_SKIPS.some((p) => o.name.includes(`/${p}`)),
  },
  {
    category: 'type-check disabled by the test (checker rejects)',
    verdictChanging: false,
    reason: 'Kubernetes always type-checks rules and cel-go\'s checker rejects these (e.g. `1.0 == 1`, `2u != 2`, `true || 32`)',
    match: (o) => o.disableCheck && (o.why ?? '').startsWith('compile error'),
  },
  {
    category: 'heterogeneous aggregate literals',
    verdictChanging: false,
    reason: 'this run compiles without the homogeneity rule, as cel-go\'s conformance runner does; what still fails here mixes types in a way Kubernetes (HomogeneousAggregateLiterals and its validator) rejects at compile time too',
    match: (o) => HOMOGENEOUS.test(o.why ?? ''),
  },
  {
    category: 'uint operands',
    verdictChanging: false,
    reason: 'no schema type yields uint; a rule can only reach uint through uint() literals it writes itself',
    match: (o) => UINT.test(o.expr),
  },
  {
    category: 'undeclared identifiers, functions, containers',
    verdictChanging: false,
    reason: 'rules declare only self/oldSelf; unknown names are compile errors in Kubernetes as here',
    match: (o) => /Unknown variable|unsupported: (function decl|container)|f_unknown/.test(o.why ?? ''),
  },
  {
    category: 'escaped identifiers and type denotations (`a.`b-c``, null_type, optional_type)',
    verdictChanging: false,
    reason: 'backtick field syntax needs EnableIdentifierEscapeSyntax, off in Kubernetes; type names of null/optional do not occur in rules',
    match: (o) => o.expr.includes('`') || /null_type|optional_type/.test(o.expr + o.name),
  },
  {
    category: "`%s` of nested lists/maps: Kubernetes' strings-extension version",
    verdictChanging: false,
    reason: 'Kubernetes pins ext.Strings version 2, whose legacy formatter prints nested strings quoted, doubles as %.6f, `timestamp("...")` and sorted `k:v` map entries (library/strings.ts does the same); cel-spec expects the version-4 formatter',
    match: (o) => o.section === 'string_ext/format' && /^got /.test(o.why ?? '') && /format\(\[\s*(\[|\{|dyn\(\[)/.test(o.expr),
  },
  {
    category: 'timestamp/duration sub-millisecond precision',
    verdictChanging: true,
    reason: 'the engine stores timestamps as JS Date (milliseconds); time.ts carries the nanoseconds: a failure here means two date-time values differing below 1 ms compare equal again',
    match: (o) => /\.\d{4,}Z|\d+ns|nanos/.test(o.expr + o.name),
  },
  {
    category: '`duration + timestamp` operand order',
    verdictChanging: true,
    reason: 'the engine types `duration + timestamp` as a duration (check-fixups.ts re-types it): a failure here means a rule comparing it to a timestamp fails to compile again',
    match: (o) => /duration\([^)]*\) \+ timestamp/.test(o.expr),
  },
  {
    category: 'other',
    verdictChanging: true,
    reason: 'not classified: treat as a bug',
    match: () => true,
  },
];

export function classify(o: Outcome): FailureClass {
  return FAILURE_CLASSES.find((c) => c.match(o))!;
}
