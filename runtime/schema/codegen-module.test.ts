// compileSchemaModule (the ahead-of-time compiler of out/validators) against the runtime compiler:
// schemas with what the spec's kinds do not all have (patterns, long and complex enums, rules beside
// a $ref, a rule that reads its schema, a rule lifted by a feature gate, CEL, defaults), the module
// source transpiled and linked as a generated module is, the same answers for every value.
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { compileSchemaModule, compileSharedModule, sharedDefinitionNames } from './codegen-module.ts';
import { compileSchemaCode } from './index.ts';
import { linkValidator, type ModuleValidation, type SharedModule } from './standalone.ts';
import { A, type CompiledCelFast } from './cel-aot-runtime.ts';
import type { CompileOptions, Schema } from './types.ts';
import { builtinCelRuleEngine } from '../cel/index.ts';

/** The module's validation as the generated file declares it, as JavaScript. */
function moduleValidation(source: string): ModuleValidation {
  const js = ts.transpileModule(`return function validation(R: any, H: any, S: any, C: any) {\n${source}\n};`, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.None },
  }).outputText;
  return new Function(js)() as ModuleValidation;
}

/** A compiled CEL rule as the generated module declares it. */
function compiledCelRule(source: string): CompiledCelFast {
  return new Function('A', ts.transpileModule(`return ${source};`, { compilerOptions: { target: ts.ScriptTarget.ES2022 } }).outputText)(A) as CompiledCelFast;
}

/** A shared module as the generated shared.ts declares it. */
function sharedModule(names: string[]): SharedModule {
  const m = compileSharedModule(names, options);
  const js = ts.transpileModule(`return function validation(R: any, H: any, C: any) {\n${m.source}\n};`, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.None },
  }).outputText;
  const cel = m.compiledCel.map(compiledCelRule);
  return { validation: new Function(js)() as SharedModule['validation'], data: m.data, compiledCel: cel };
}

const definitions: Record<string, Schema> = {
  Name: { type: 'string', pattern: '^[a-z]([-a-z0-9]*[a-z0-9])?$', maxLength: 12 },
  Sized: {
    type: 'object',
    properties: { data: { type: 'object', additionalProperties: { type: 'string', format: 'byte' } }, note: { type: 'string', default: 'none' } },
    'x-cluster-rules': [{ rule: 'maxTotalBytes', limit: 4, fields: ['data'] }],
  },
  Thing: {
    type: 'object',
    required: ['name'],
    properties: {
      name: { $ref: '#/components/schemas/Name' },
      letter: { type: 'string', enum: 'abcdefghijklmnopqrstu'.split('') },
      shape: { enum: [{ a: 1 }, [1, 2], 'flat'] },
      fixed: { type: 'string', 'x-cluster-immutable': true },
      gated: { type: 'string', 'x-cluster-rules': [{ rule: 'immutable', unlessFeatureGate: 'MutableGated' }] },
      sized: { $ref: '#/components/schemas/Sized', 'x-cluster-rules': [{ rule: 'nonEmpty' }] },
      replicas: { type: 'integer', default: 1, 'x-cluster-validations': [{ rule: 'self <= 5', message: 'at most 5' }] },
      items: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' }, v: { type: 'integer', default: 0 } } }, 'x-cluster-list-type': 'map', 'x-cluster-list-map-keys': ['k'] },
    },
    additionalProperties: false,
  },
};

const options: CompileOptions = { definitions, cel: builtinCelRuleEngine, celErrorValue: 'value' };
const root: Schema = { $ref: '#/components/schemas/Thing' };

const values: [string, unknown, unknown?][] = [
  ['valid', { name: 'abc', letter: 'u', shape: [1, 2], replicas: 2, sized: { data: { a: 'AAAA' } } }],
  ['defaults and list items', { name: 'abc', items: [{ k: 'a' }, { k: 'b', v: 3 }], sized: {} }],
  ['bad pattern and length', { name: 'Abc-defghijklmnop' }],
  ['enum misses', { name: 'a', letter: 'z', shape: { a: 2 } }],
  ['CEL rule fails', { name: 'a', replicas: 9 }],
  ['rule reading its schema', { name: 'a', sized: { data: { a: 'AAAAAAAA', b: 'AAAA' } } }],
  ['unknown field and duplicate list key', { name: 'a', zz: 1, items: [{ k: 'a' }, { k: 'a' }] }],
  ['wrong types everywhere', { name: 1, letter: [], shape: null, replicas: 'x', sized: 'x', items: {} }],
  ['update of immutable fields', { name: 'a', fixed: 'x', gated: 'x' }, { name: 'a', fixed: 'y', gated: 'y' }],
  ['update removing an immutable field', { name: 'a' }, { name: 'a', fixed: 'y', gated: 'y' }],
  ['not an object', 'text'],
];

const clone = <T>(v: T): T => (v === undefined ? v : structuredClone(v));

describe('compileSchemaModule agrees with the runtime compiler', () => {
  const module = compileSchemaModule(root, options);
  const validation = moduleValidation(module.source);

  it('writes its constants as expressions: a set, an RE2 pattern, complex enum values', () => {
    expect(module.source).toMatch(/new Set\(\[/);
    expect(module.source).toMatch(/H\.lazyPattern\(/);
    expect(Object.keys(module.data.definitions).sort()).toEqual(['Name', 'Sized', 'Thing']);
    expect(JSON.parse(JSON.stringify(module.data))).toEqual(module.data);
  });

  const gateSets: Record<string, boolean>[] = [{}, { MutableGated: true }];
  for (const gates of gateSets) {
    const standalone = linkValidator(validation, module.data, { ...options, featureGates: gates });
    const runtime = compileSchemaCode(root, { ...options, featureGates: gates });
    it.each(values)(`%s (gates ${JSON.stringify(gates)})`, (_name, object, old) => {
      const run = (v: typeof runtime): unknown => (old === undefined ? v.validate(clone(object)) : v.validateUpdate(clone(object), clone(old)));
      const got = run(standalone);
      expect(got).toEqual(run(runtime));
      const a = clone(object);
      const b = clone(object);
      standalone.applyDefaults(a);
      runtime.applyDefaults(b);
      expect(a).toEqual(b);
      expect(standalone.prune(a)).toEqual(runtime.prune(b));
      expect(a).toEqual(b);
    });
  }

  it('reports the gated rule only with its gate off, and a failing CEL rule', () => {
    const off = linkValidator(validation, module.data, { ...options, featureGates: {} });
    const on = linkValidator(validation, module.data, { ...options, featureGates: { MutableGated: true } });
    const fields = (errs: { field: string }[]): string[] => errs.map((e) => e.field);
    const sized = { data: { a: 'AA==' } };
    expect(fields(off.validateUpdate({ name: 'a', sized, gated: 'x' }, { name: 'a', sized, gated: 'y' }))).toEqual(['gated']);
    expect(fields(on.validateUpdate({ name: 'a', sized, gated: 'x' }, { name: 'a', sized, gated: 'y' }))).toEqual([]);
    expect(fields(off.validate({ name: 'a', sized, replicas: 9 }))).toEqual(['replicas']);
  });

  it('guards a CEL closure with its compiled rules, and a verifying link leaves every rule to the closure', () => {
    expect(module.source).toMatch(/function cg\d+\(s: any\): boolean/);
    const runtime = compileSchemaCode(root, options);
    let answered = 0;
    const counted = module.compiledCel.map(compiledCelRule).map((f): CompiledCelFast => (s, o) => {
      const ok = f(s, o);
      if (ok === true) answered++;
      return ok;
    });
    const guarded = linkValidator(validation, module.data, { ...options, compiledCel: counted });
    const verifying = linkValidator(validation, module.data, { ...options, compiledCel: counted, verifyCompiledCel: true });
    for (const [, object, old] of values) {
      const run = (v: typeof runtime): unknown => (old === undefined ? v.validate(clone(object)) : v.validateUpdate(clone(object), clone(old)));
      expect(run(guarded)).toEqual(run(runtime));
      expect(run(verifying)).toEqual(run(runtime));
    }
    expect(answered).toBeGreaterThan(0);
  });

  it('calls the definitions of a shared module instead of generating them, with the same answers', () => {
    // two roots reach Name (one schema node) and Sized (four): only Sized is shared at two nodes or more
    const other: Schema = { type: 'object', properties: { n: { $ref: '#/components/schemas/Name' }, s: { $ref: '#/components/schemas/Sized' } } };
    expect(sharedDefinitionNames([root, other], definitions, new Set(['Thing']))).toEqual([]);
    // a root that does not reach Sized keeps it out (a bundle of that root would carry it)
    expect(sharedDefinitionNames([root, other, { type: 'string' }], definitions, new Set(['Thing']), 2)).toEqual([]);
    const names = sharedDefinitionNames([root, other], definitions, new Set(['Thing']), 2);
    expect(names).toEqual(['Sized']);
    const shared = sharedModule(names);
    const kind = compileSchemaModule(root, options, new Set(names));
    expect(kind.source).toMatch(/S\["Sized"\]/);
    expect(kind.source).not.toMatch(/maxTotalBytes|\/\/ Sized/);
    const v = linkValidator(moduleValidation(kind.source), kind.data, { ...options, shared });
    const runtime = compileSchemaCode(root, options);
    for (const [, object, old] of values) {
      expect(old === undefined ? v.validate(clone(object)) : v.validateUpdate(clone(object), clone(old)))
        .toEqual(old === undefined ? runtime.validate(clone(object)) : runtime.validateUpdate(clone(object), clone(old)));
    }
  });

  it('strict: unknown fields in upstream wording, without dropping them', () => {
    const v = linkValidator(validation, module.data, options);
    const obj = { name: 'a', zz: 1, sized: { data: {}, yy: 2 } };
    expect(v.validate(obj, { strict: true }).filter((e) => e.message.startsWith('unknown')).map((e) => e.message)).toEqual(['unknown field "zz"', 'unknown field "sized.yy"']);
    expect(obj).toEqual({ name: 'a', zz: 1, sized: { data: {}, yy: 2 } });
  });
});
