// Equivalence of the two builders of the schema tree, generated code (codegen.ts) and closures
// (compile.ts): every schema and object the other tests use goes through both, and validate,
// validateUpdate, applyDefaults and prune must agree exactly (errors, order, messages).
// Beside the fixtures, seeded mutations of the resource fixtures exercise the error paths.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { compileSchemaToClosures, SchemaCompileError } from './compile.ts';
import { compileSchemaCode, compileSchemaSource, type ValidatorFactory } from './codegen.ts';
import type { CompileOptions, CompiledValidator, ResourceContext, Schema } from './types.ts';
import { fakeCel, loadFixture } from './testutil.ts';
import * as validators from '../../out/validators/index.ts';
import { definitions } from '../../out/validators/definitions.ts';
import { featureGateDefaults } from '../../out/validators/feature-gates.ts';
import { builtinCelRuleEngine } from '../cel/index.ts';
import { FAST_SYNTAX } from './fastsyntax.ts';
import { SYNTAX_CHECKS } from './syntax.ts';
import { stringFormat } from './formats.ts';
import { isQuantity } from '../quantity/quantity.ts';

const clone = <T>(v: T): T => (v === undefined ? v : structuredClone(v));

interface Pair { ref: CompiledValidator; gen: CompiledValidator }

function both(schema: Schema, options: CompileOptions): Pair {
  return { ref: compileSchemaToClosures(schema, options), gen: compileSchemaCode(schema, options) };
}

/** Runs one object (and old) through both validators: validation, defaulting and pruning. */
function expectSame(p: Pair, object: unknown, old?: unknown): void {
  const a = old === undefined ? p.ref.validate(clone(object)) : p.ref.validateUpdate(clone(object), clone(old));
  const b = old === undefined ? p.gen.validate(clone(object)) : p.gen.validateUpdate(clone(object), clone(old));
  expect(b).toEqual(a);
  // both orders of the update too, and a create of the old object
  if (old !== undefined) expect(p.gen.validate(clone(old))).toEqual(p.ref.validate(clone(old)));
  const da = clone(object);
  const db = clone(object);
  p.ref.applyDefaults(da);
  p.gen.applyDefaults(db);
  expect(db).toEqual(da);
  const pa = clone(object);
  const pb = clone(object);
  expect(p.gen.prune(pb)).toEqual(p.ref.prune(pa));
  expect(pb).toEqual(pa);
}

/** A deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ODD_VALUES: unknown[] = [null, '', 'x', 'UPPER_case', '-bad-', 'a'.repeat(300), 0, -1, 1.5, 2 ** 40, true, false, [], [1, 1], ['a', 'a'], {}, { a: 1 }, [{}], [{ name: 'a' }, { name: 'a' }]];

/** Seeded mutations of an object: replace, delete and add values at random paths. */
function mutations(obj: unknown, seed: number, count: number): unknown[] {
  const r = rng(seed);
  const out: unknown[] = [];
  for (let m = 0; m < count; m++) {
    const o = clone(obj);
    const edits = 1 + Math.floor(r() * 3);
    for (let e = 0; e < edits; e++) {
      // walk to a random container
      let cur: unknown = o;
      for (let depth = 0; depth < 8; depth++) {
        const keys = Array.isArray(cur) ? cur.map((_, i) => i) : cur && typeof cur === 'object' ? Object.keys(cur) : [];
        const inner = keys.filter((k) => { const v = (cur as Record<string | number, unknown>)[k]; return v !== null && typeof v === 'object'; });
        if (!inner.length || r() < 0.3) break;
        cur = (cur as Record<string | number, unknown>)[inner[Math.floor(r() * inner.length)]];
      }
      if (!cur || typeof cur !== 'object') continue;
      const c = cur as Record<string | number, unknown>;
      const keys: (string | number)[] = Array.isArray(cur) ? cur.map((_, i) => i) : Object.keys(cur);
      const action = r();
      const val = ODD_VALUES[Math.floor(r() * ODD_VALUES.length)];
      if (keys.length && action < 0.5) c[keys[Math.floor(r() * keys.length)]] = clone(val);
      else if (keys.length && action < 0.7) {
        const k = keys[Math.floor(r() * keys.length)];
        if (Array.isArray(cur)) cur.splice(k as number, 1);
        else delete c[k];
      } else if (Array.isArray(cur)) {
        cur.push(cur.length && r() < 0.5 ? clone(cur[0]) : clone(val));
      } else {
        c[r() < 0.5 ? 'unknownField' : 'x-y.z/w'] = clone(val);
      }
    }
    out.push(o);
  }
  return out;
}

// ---- the table fixtures of test/fixtures/schema

interface Case { name: string; schema?: Schema; definitions?: Record<string, Schema>; resource?: ResourceContext; object: unknown; old?: unknown }
const RESOURCE: ResourceContext = { kind: 'ConfigMap', group: '', version: 'v1', namespaced: true, nameSyntax: 'dns1123Subdomain' };
const ROOT: Schema = {
  type: 'object',
  properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object', 'x-cluster-preserve-unknown-fields': true } },
};

describe('codegen = closures: keywords.yaml', () => {
  for (const c of loadFixture<Case[]>('keywords.yaml')) {
    it(c.name, () => {
      const p = both(c.schema!, { definitions: c.definitions, resource: c.resource });
      expectSame(p, c.object, c.old);
      for (const m of mutations(c.object, 1, 10)) expectSame(p, m, c.old);
    });
  }
});

describe('codegen = closures: metadata.yaml', () => {
  for (const c of loadFixture<Case[]>('metadata.yaml')) {
    it(c.name, () => {
      const p = both(c.schema ?? ROOT, { definitions: c.definitions, resource: c.resource ?? RESOURCE });
      expectSame(p, c.object, c.old);
      for (const m of mutations(c.object, 2, 10)) expectSame(p, m, c.old);
    });
  }
});

interface RuleFixture { schema: Schema; featureGates?: Record<string, boolean>; cases: { name: string; object: unknown; old?: unknown }[] }

describe('codegen = closures: rules.yaml', () => {
  for (const [kind, f] of Object.entries(loadFixture<Record<string, RuleFixture>>('rules.yaml'))) {
    it(kind, () => {
      const p = both(f.schema, { featureGates: f.featureGates });
      for (const c of f.cases) {
        expectSame(p, c.object, c.old);
        for (const m of mutations(c.object, 3, 5)) expectSame(p, m, c.old);
      }
    });
  }
});

// ---- the inline cases of compile.test.ts

describe('codegen = closures: compile.test.ts cases', () => {
  it('CEL rules', () => {
    const cel = fakeCel({
      'self.min <= self.max': (s) => ((s as { min?: number }).min ?? 0) <= ((s as { max?: number }).max ?? 0),
      'self == oldSelf': (s, o) => s === o,
      'self.size() > 0': (s) => (s as string).length > 0,
    });
    const schema: Schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          'x-cluster-validations': [{ rule: 'self.min <= self.max', message: 'min must not exceed max', fieldPath: '.min' }],
          properties: {
            min: { type: 'integer' },
            max: { type: 'integer' },
            name: { type: 'string', 'x-cluster-validations': [{ rule: 'self == oldSelf', message: 'name is immutable', reason: 'FieldValueForbidden' }] },
            tag: { type: 'string', 'x-cluster-validations': [{ rule: 'self.size() > 0' }] },
          },
        },
        items: {
          type: 'array',
          'x-cluster-list-type': 'map',
          'x-cluster-list-map-keys': ['k'],
          items: { type: 'object', properties: { k: { type: 'string' }, v: { type: 'string', 'x-cluster-validations': [{ rule: 'self == oldSelf', message: 'v is immutable' }] } } },
        },
      },
    };
    const p = both(schema, { cel });
    expectSame(p, { spec: { min: 3, max: 1, tag: '' } });
    expectSame(p, { spec: { name: 'a' } });
    expectSame(p, { spec: { name: 'b' } }, { spec: { name: 'a' } });
    const old = { items: [{ k: 'a', v: '1' }, { k: 'b', v: '2' }] };
    expectSame(p, { items: [{ k: 'b', v: '2' }, { k: 'a', v: '1' }, { k: 'c', v: '3' }] }, old);
    expectSame(p, { items: [{ k: 'b', v: '9' }] }, old);
    expectSame(p, { items: [{ k: 'b', v: '9' }, { k: 'b', v: '1' }] }, old);
    expect(() => compileSchemaCode(schema, {})).toThrow(SchemaCompileError);
  });

  const malformed: [Schema, Record<string, Schema>?][] = [
    [{ type: 'object', 'x-cluster-rules': [{ rule: 'nope' }] }],
    [{ type: 'object', properties: { a: { type: 'string' } }, 'x-cluster-rules': [{ rule: 'atMostOneOf', fields: ['a', 'b'] }] }],
    [{ type: 'object', properties: { a: { $ref: '#/components/schemas/Missing' } } }],
    [{ type: 'string', pattern: '(' }],
    [{ type: 'array', 'x-cluster-list-type': 'map', items: { type: 'object' } }],
    [{ type: 'strin' } as unknown as Schema],
    [{ type: 'integer', multipleOf: 0 }],
    [{ type: 'object', properties: { a: { type: 'string', minLength: 'x' as unknown as number } }, required: 'a' as unknown as string[] }],
  ];
  it('malformed schemas fail alike', () => {
    for (const [schema, defs] of malformed) {
      let ea: unknown;
      let eb: unknown;
      try { compileSchemaToClosures(schema, { definitions: defs }); } catch (e) { ea = e; }
      try { compileSchemaCode(schema, { definitions: defs }); } catch (e) { eb = e; }
      expect(eb).toBeInstanceOf(SchemaCompileError);
      expect((eb as SchemaCompileError).message).toBe((ea as SchemaCompileError).message);
    }
  });

  it('defaults and pruning', () => {
    const schema: Schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            mode: { type: 'string', default: 'Filesystem' },
            nested: { type: 'object', properties: { port: { type: 'integer', default: 443 } } },
            opt: { type: 'object', default: {}, properties: { x: { type: 'string', default: 'dx' } } },
            list: { type: 'array', items: { type: 'object', properties: { p: { type: 'string', default: 'TCP' } } } },
            nul: { type: 'string', default: 'd' },
            a: { type: 'string' },
            raw: { type: 'object', 'x-cluster-preserve-unknown-fields': true },
            map: { type: 'object', additionalProperties: { type: 'object', properties: { k: { type: 'string' } } } },
            emb: { type: 'object', 'x-cluster-embedded-resource': true, properties: { spec: { type: 'object', properties: {} } } },
          },
        },
      },
    };
    const p = both(schema, { resource: RESOURCE });
    expectSame(p, { spec: { list: [{}, { p: 'UDP' }], nul: null } });
    expectSame(p, {});
    expectSame(p, {
      apiVersion: 'v1', kind: 'X', metadata: { name: 'a', labels: { x: 'y' } }, extra: 1,
      spec: {
        a: 'x', b: 'y', raw: { anything: { deep: true } }, list: [{ k: 'a', z: 1 }], map: { key: { k: 'a', z: 2 } },
        emb: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { gone: 1 }, other: 2 },
      },
    });
  });

  it('composition, enums, bounds and sets', () => {
    const schema: Schema = {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      maxProperties: 6,
      properties: {
        any: { anyOf: [{ type: 'string', maxLength: 2 }, { type: 'integer', minimum: 3 }] },
        one: { oneOf: [{ type: 'string' }, { type: 'string', enum: ['a'] }, { type: 'integer', exclusiveMaximum: true, maximum: 5 }] },
        not: { not: { type: 'string' } },
        all: { allOf: [{ type: 'number', multipleOf: 0.5 }, { type: 'number', maximum: 10, format: 'int32' }] },
        e: { enum: ['a', 1, null, { x: 1 }, [1]], nullable: true },
        s: { type: 'array', 'x-cluster-list-type': 'set', items: { type: 'string', pattern: '^[a-z]+$', minLength: 1 } },
        u: { type: 'array', uniqueItems: true, minItems: 1, maxItems: 3 },
        m: { type: 'array', 'x-cluster-list-type': 'map', 'x-cluster-list-map-keys': ['a', 'b'], items: { type: 'object' } },
        ios: { 'x-cluster-int-or-string': true, format: 'int-or-string' as string, pattern: '^[0-9]+%?$' },
        f: { type: 'string', format: 'date-time' },
      },
    };
    const p = both(schema, {});
    const objects: unknown[] = [
      {}, { any: 'abc' }, { any: 1 }, { any: 'ab' }, { one: 'a' }, { one: 'b' }, { one: 5 }, { not: 'x' }, { not: 1 },
      { all: 0.3 }, { all: 11.5 }, { e: { x: 1 } }, { e: [1] }, { e: null }, { e: 'b' },
      { s: ['a', 'b', 'a', 'A', '', 'a'] }, { s: [1, 1, 'a'] }, { u: [] }, { u: [{ a: 1 }, { a: 1 }, 2, 3] },
      { m: [{ a: 1, b: 2 }, { a: 1, b: 2 }, { a: 1 }, 5, { a: 1 }] }, { ios: '50%' }, { ios: 'x' }, { ios: 1.5 },
      { f: '2020-01-01T00:00:00Z' }, { f: 'yesterday' }, { zz: 1, yy: 2, a: 1, b: 2, c: 3, d: 4, e: 'a' }, { s: 'a', u: 1, m: {} },
    ];
    for (const o of objects) expectSame(p, o);
  });

  it('generated source holds no raw user data', () => {
    const evil = '"; throw new Error("injected"); "\u2028';
    const schema: Schema = {
      type: 'object',
      required: [evil],
      properties: { [evil]: { type: 'string', enum: [evil], pattern: evil.replace(/[()]/g, '.') } },
      additionalProperties: false,
    };
    const { source } = compileSchemaSource(schema, {});
    expect(source).not.toContain('throw new Error("injected")');
    const p = both(schema, {});
    expectSame(p, { [evil]: 'x', other: 1 });
    expectSame(p, {});
  });
});

// ---- the resource fixtures of test/fixtures/objects (as test/validators/fixtures.test.ts runs them)

interface ObjectFixture { shape?: string; featureGates?: Record<string, boolean>; object: unknown; old?: unknown }

const objectsDir = join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'objects');
// by module (schema name): the kind, or EventsV1Event for the Event of events.cluster.io
const contexts = new Map<string, [string, ResourceContext]>(Object.entries(validators).map(([shape, v]) => [shape.toLowerCase(), [shape, v.resourceContext]]));
const fixtures = readdirSync(objectsDir).sort().flatMap((dir) =>
  readdirSync(join(objectsDir, dir)).filter((f) => f.endsWith('.yaml')).sort()
    .map((f) => [dir, f, parse(readFileSync(join(objectsDir, dir, f), 'utf8')) as ObjectFixture] as const));

const pairs = new Map<string, Pair>();
function pairFor(dir: string, fx: ObjectFixture): Pair {
  const key = `${dir}|${fx.shape ?? ''}|${JSON.stringify(fx.featureGates ?? {})}`;
  let p = pairs.get(key);
  if (!p) {
    const featureGates = { ...featureGateDefaults, ...(fx.featureGates ?? {}) };
    const opts: CompileOptions = { definitions, featureGates, cel: builtinCelRuleEngine, celErrorValue: 'value' };
    if (fx.shape) p = both({ $ref: `#/components/schemas/${fx.shape}` }, opts);
    else {
      const [shape, rc] = contexts.get(dir)!;
      p = both({ $ref: `#/components/schemas/${shape}` }, { ...opts, resource: rc });
    }
    pairs.set(key, p);
  }
  return p;
}

describe('codegen = closures: test/fixtures/objects', () => {
  it.each(fixtures.map(([dir, f, fx]) => [`${dir}/${f}`, dir, fx] as const))('%s', (_name, dir, fx) => {
    const p = pairFor(dir, fx);
    expectSame(p, fx.object, fx.old);
    let seed = 0;
    for (const ch of _name) seed = (seed * 31 + ch.charCodeAt(0)) >>> 0;
    for (const m of mutations(fx.object, seed, 20)) expectSame(p, m, fx.old);
    if (fx.old !== undefined) for (const m of mutations(fx.old, seed + 1, 5)) expectSame(p, fx.object, m);
  });
});

describe('codegen = closures: structural definitions (the benchmark\'s)', () => {
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (!node || typeof node !== 'object') return node;
    return Object.fromEntries(Object.entries(node).filter(([k]) => !k.startsWith('x-cluster-')).map(([k, v]) => [k, k === 'properties' ? Object.fromEntries(Object.entries(v as object).map(([p, s]) => [p, strip(s)])) : strip(v)]));
  };
  const defs = strip(definitions) as Record<string, Schema>;
  it.each([...contexts.entries()])('%s', (dir, [shape]) => {
    const p = both({ $ref: `#/components/schemas/${shape}` }, { definitions: defs });
    for (const [d, f, fx] of fixtures) {
      if (d !== dir || fx.shape) continue;
      expectSame(p, fx.object);
      let seed = 7;
      for (const ch of f) seed = (seed * 31 + ch.charCodeAt(0)) >>> 0;
      for (const m of mutations(fx.object, seed, 10)) expectSame(p, m);
    }
  });
});

describe('codegen compiles every definition', () => {
  it('every shape, alone', () => {
    for (const name of Object.keys(definitions)) {
      const opts: CompileOptions = { definitions, featureGates: featureGateDefaults, cel: builtinCelRuleEngine, celErrorValue: 'value' };
      expect(() => compileSchemaCode({ $ref: `#/components/schemas/${name}` }, opts), name).not.toThrow();
    }
  });
});

describe('fast syntax checks agree with syntax.ts', () => {
  it('on seeded random strings', () => {
    const r = rng(42);
    const alphabet = 'aZ9-._/%é.a-b/ ';
    const seeds = ['a', 'abc', 'a.b', 'a-b.c-d', 'example.com/MyName', 'x'.repeat(63), 'x'.repeat(64), ('a'.repeat(60) + '.').repeat(4) + 'b', 'A_b.c', 'k8s.io/name', '..x', '.', 'a/../b', '..', 'x/..'];
    for (let i = 0; i < 100000; i++) {
      const s0 = seeds[i % seeds.length].split('');
      const n = Math.floor(r() * 3);
      for (let j = 0; j < n; j++) {
        const pos = Math.floor(r() * (s0.length + 1));
        const ch = alphabet[Math.floor(r() * alphabet.length)];
        if (r() < 0.5) s0.splice(pos, 0, ch); else s0[pos] = ch;
      }
      if (r() < 0.1) s0.length = Math.floor(r() * s0.length);
      const s = s0.join('');
      for (const [name, ok] of Object.entries(FAST_SYNTAX)) {
        const want = SYNTAX_CHECKS[name as keyof typeof SYNTAX_CHECKS](s).length === 0;
        if (ok!(s) !== want) expect({ name, s, fast: ok!(s) }).toEqual({ name, s, fast: want });
      }
    }
  });
});

/** A random instance of a schema (often valid, sometimes not), for the shapes without fixtures. */
function randomInstance(s: Schema, r: () => number, depth = 0): unknown {
  let cur = s;
  for (let i = 0; i < 8 && cur.$ref; i++) cur = definitions[cur.$ref.split('/').pop()!] ?? {};
  if (r() < 0.08 || depth > 7) return ODD_VALUES[Math.floor(r() * ODD_VALUES.length)];
  if (cur.enum && r() < 0.8) return cur.enum[Math.floor(r() * cur.enum.length)];
  const type = cur['x-cluster-int-or-string'] ? (r() < 0.5 ? 'string' : 'integer') : cur.type;
  switch (type) {
    case 'object': {
      const o: Record<string, unknown> = {};
      for (const [k, ps] of Object.entries(cur.properties ?? {})) if (r() < 0.5 || cur.required?.includes(k)) o[k] = randomInstance(ps, r, depth + 1);
      if (typeof cur.additionalProperties === 'object') {
        const n = Math.floor(r() * 3);
        for (let i = 0; i < n; i++) o[['a', 'b.c', 'x/y', 'K_1', '..'][Math.floor(r() * 5)]] = randomInstance(cur.additionalProperties, r, depth + 1);
      }
      return o;
    }
    case 'array': {
      const n = Math.floor(r() * 4);
      const a = Array.from({ length: n }, () => randomInstance(cur.items ?? {}, r, depth + 1));
      if (n && r() < 0.2) a.push(clone(a[0]));
      return a;
    }
    case 'string': return ['', 'a', 'abc-def', 'Bad_Value', '10Gi', '1.5', 'example.com/x', '2024-01-01T00:00:00Z', 'https://x.io/p', '/abs/path'][Math.floor(r() * 10)];
    case 'integer': return [0, 1, -1, 3, 100, 65536, 2 ** 33][Math.floor(r() * 7)];
    case 'number': return [0, 0.5, -2, 1e10][Math.floor(r() * 4)];
    case 'boolean': return r() < 0.5;
    default: return ODD_VALUES[Math.floor(r() * ODD_VALUES.length)];
  }
}

describe('codegen = closures: random instances of every shape', () => {
  const opts: CompileOptions = { definitions, featureGates: featureGateDefaults, cel: builtinCelRuleEngine, celErrorValue: 'value' };
  it.each(Object.keys(definitions))('%s', (name) => {
    const root: Schema = { $ref: `#/components/schemas/${name}` };
    const p = both(root, opts);
    const r = rng(name.length * 7919 + name.charCodeAt(0));
    for (let i = 0; i < 30; i++) {
      const obj = randomInstance(root, r);
      const old = r() < 0.3 ? randomInstance(root, r) : undefined;
      let refErr: unknown;
      try {
        p.ref.validate(clone(obj));
        if (old !== undefined) p.ref.validateUpdate(clone(obj), clone(old));
      } catch (e) {
        refErr = e;
      }
      if (refErr) {
        expect(() => { p.gen.validate(clone(obj)); if (old !== undefined) p.gen.validateUpdate(clone(obj), clone(old)); }).toThrow((refErr as Error).message);
        continue;
      }
      expectSame(p, obj, old);
    }
  });
});

describe('compileSchemaSource', () => {
  it('is the source compileSchemaCode runs, usable as a prebuilt factory', () => {
    const [, rc] = contexts.get('configmap')!;
    const opts: CompileOptions = { definitions, resource: rc, featureGates: featureGateDefaults, cel: builtinCelRuleEngine, celErrorValue: 'value' };
    const schema: Schema = { $ref: '#/components/schemas/ConfigMap' };
    const src = compileSchemaSource(schema, opts);
    expect(src.closures.map((c) => c.what)).toContain('metadata');
    const factory = new Function('K', 'R', 'H', src.source) as ValidatorFactory;
    const p: Pair = { ref: compileSchemaToClosures(schema, opts), gen: compileSchemaCode(schema, opts, factory) };
    for (const [dir, , fx] of fixtures) if (dir === 'configmap') expectSame(p, fx.object, fx.old);
  });
});

describe('format fast paths agree with their general definitions', () => {
  // the definitions the fast paths of formats.ts shortcut
  const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  const isDate = (s: string): boolean => {
    const m = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(s);
    if (!m) return false;
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (mo < 1 || mo > 12 || d < 1) return false;
    const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
    return d <= (mo === 2 && leap ? 29 : DAYS[mo - 1]);
  };
  const reTime = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;
  const dateTime = (s: string): boolean => {
    if (s.length < 4) return false;
    const parts = s.toLowerCase().split('t');
    if (parts.length < 2 || !isDate(parts[0])) return false;
    const m = reTime.exec(parts[1]);
    return !!m && m[1] <= '23' && m[2] <= '59' && m[3] <= '59';
  };
  const byte = (s: string): boolean => s === '' || /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/.test(s);
  it('on seeded random strings', () => {
    const r = rng(7);
    const mutate = (base: string, alphabet: string): string => {
      const s = base.split('');
      const n = Math.floor(r() * 3);
      for (let j = 0; j < n; j++) {
        const pos = Math.floor(r() * (s.length + 1));
        const ch = alphabet[Math.floor(r() * alphabet.length)];
        if (r() < 0.3) s.splice(pos, 0, ch); else if (r() < 0.5) s.splice(pos, 1); else s[pos] = ch;
      }
      return s.join('');
    };
    const cases: [string, (s: string) => boolean, string[], string][] = [
      ['date-time', dateTime, ['2024-02-29T23:59:59Z', '1900-02-29t00:00:00.123+05:30', '2023-13-01T00:00:00Z', '2024-04-31T24:00:00z'], '0123456789-:TtZz.+x '],
      ['quantity', isQuantity, ['100Mi', '1.5', '-250m', '+1e3', '.5Gi', '0', '1Ki'], '0123456789.+-eEinumkKMGTPx'],
      ['byte', byte, ['aGVsbG8=', 'aGk=', 'aGVsbA==', 'YWJj', ''], 'Aa0+/=.-'],
    ];
    for (const [name, want, seeds, alphabet] of cases) {
      const fast = stringFormat(name)!;
      for (let i = 0; i < 30000; i++) {
        const s = mutate(seeds[i % seeds.length], alphabet);
        if (fast(s) !== want(s)) expect({ name, s, fast: fast(s) }).toEqual({ name, s, fast: want(s) });
      }
    }
  });
});
