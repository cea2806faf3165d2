// Runs every test of the cel-spec conformance data (@bufbuild/cel-spec) through our engine layer
// and ratchets the pass count: it must not drop below PASS_FLOOR.

import { tests } from '@bufbuild/cel-spec/testdata/conformance.js';
import type { SerializedIncrementalTestSuite } from '@bufbuild/cel-spec/testdata/tests.js';
import { describe, expect, it } from 'vitest';
import { CelEnvironment, celEquals, UnsignedInt, Duration } from './engine.ts';
import './libraries.ts';

/** Measured pass count (raise it when the engine layer improves; never lower it silently). */
const PASS_FLOOR = 1228;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObj = { [k: string]: Json };

class Unsupported extends Error {}

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
  if ('typeValue' in o) throw new Unsupported('type value');
  if ('objectValue' in o) {
    const any = o.objectValue as JsonObj;
    const t = String(any['@type'] ?? '');
    if (t.endsWith('google.protobuf.Duration')) {
      const m = /^(-?\d+)(?:\.(\d+))?s$/.exec(String(any.value));
      if (m) return new Duration(BigInt(m[1]), Number((m[2] ?? '').padEnd(9, '0')) * (m[1].startsWith('-') ? -1 : 1));
    }
    if (t.endsWith('google.protobuf.Timestamp')) return new Date(String(any.value));
    throw new Unsupported(`object ${t}`);
  }
  throw new Unsupported('value kind');
}

function sameValue(got: unknown, want: unknown): boolean {
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

interface Outcome {
  name: string;
  pass: boolean;
  why?: string;
}

function runOne(o: JsonObj): boolean {
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
  if (o.container) throw new Unsupported('container');
  const env = new CelEnvironment({ variables: vars });
  const wantsError = 'evalError' in o;
  let compiled;
  try {
    compiled = env.compile(String(o.expr));
  } catch {
    return wantsError;
  }
  if (o.checkOnly) return true;
  let got: unknown;
  try {
    got = compiled.evaluate(bindings, 10_000_000);
  } catch {
    return wantsError;
  }
  if (wantsError) return false;
  if ('value' in o) return sameValue(got, toValue(o.value));
  if ('typedResult' in o) return sameValue(got, toValue((o.typedResult as JsonObj).result));
  return got === true;
}

function collect(s: SerializedIncrementalTestSuite, path: string, out: Outcome[]): void {
  for (const t of s.tests ?? []) {
    const o = t.original as unknown as JsonObj;
    const name = `${path}/${String(o.name)}`;
    try {
      out.push({ name, pass: runOne(o) });
    } catch (e) {
      out.push({ name, pass: false, why: (e as Error).message });
    }
  }
  for (const sub of s.suites ?? []) collect(sub, `${path}/${sub.name}`, out);
}

describe('cel-spec conformance', () => {
  it('does not regress below the measured floor', () => {
    const out: Outcome[] = [];
    collect(tests, tests.name, out);
    const passed = out.filter((o) => o.pass).length;
    console.log(`cel-spec conformance: ${passed}/${out.length} passed`);
    if (process.env.CEL_CONFORMANCE_FAILURES) for (const o of out) if (!o.pass) console.log(`FAIL ${o.name}${o.why ? ` (${o.why})` : ''}`);
    expect(passed).toBeGreaterThanOrEqual(PASS_FLOOR);
  }, 120_000);
});
