// CEL rules compiled to JavaScript (cel-aot.ts) against the interpreter (runtime/cel), the
// reference: on every value of the table a compiled rule answers true only where the interpreter
// does, and it does answer true on the values it is meant to speed up. Rules outside the subset
// are not compiled; patterns whose JS meaning could differ from RE2's go to RE2.
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { asciiRegExpSource, compileCelRuleToJs } from './cel-aot.ts';
import { A, type CompiledCelFast } from './cel-aot-runtime.ts';
import { builtinCelRuleEngine } from '../cel/index.ts';
import type { Schema } from './types.ts';

const definitions: Record<string, Schema> = {
  Ref: { type: 'object', properties: { name: { type: 'string' }, namespace: { type: 'string' } } },
};
const scope: Schema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    count: { type: 'integer' },
    on: { type: 'boolean' },
    when: { type: 'string', format: 'date-time' },
    data: { type: 'object', additionalProperties: { type: 'string' } },
    tags: { type: 'array', items: { type: 'string' } },
    set: { type: 'array', items: { type: 'string' }, 'x-cluster-list-type': 'set' },
    refs: { type: 'array', items: { $ref: '#/components/schemas/Ref' } },
    ref: { $ref: '#/components/schemas/Ref' },
  },
};

function fast(rule: string): CompiledCelFast | null {
  const src = compileCelRuleToJs({ rule }, scope, definitions);
  if (src === null) return null;
  const js = ts.transpileModule(`return ${src};`, { compilerOptions: { target: ts.ScriptTarget.ES2022 } }).outputText;
  return new Function('A', js)(A) as CompiledCelFast;
}

const LONG = `${'a'.repeat(300)}-`;
const values: unknown[] = [
  {}, { name: 'abc' }, { name: '' }, { name: 'ABC' }, { name: 'a.b-c' }, { name: `${'a'.repeat(63)}.b` }, { name: 'a'.repeat(64) }, { name: 'é' }, { name: LONG }, { name: 1 }, { name: null },
  { count: 0 }, { count: 3 }, { count: -1 }, { count: 2 ** 60 }, { count: 'x' }, { on: true }, { on: false }, { on: 'true' },
  { when: '2024-01-01T00:00:00Z' }, { data: { a: 'x', b: 'y' } }, { data: { a: null } }, { data: {} }, { tags: ['a', 'b'] }, { tags: [] },
  { tags: ['a', 1] }, { set: ['a', 'b'] }, { refs: [{ name: 'a' }, { name: 'b', namespace: 'n' }] }, { refs: [{}] },
  { ref: { name: 'x', namespace: 'y' } }, { ref: { name: '' } }, { ref: 'x' }, { name: 'a\rb' }, { name: 'a\nb' }, { name: 'a.b' },
];

/** [rule, compiles, old values to try (transition rules)] */
const rules: [string, boolean][] = [
  ["has(self.name) && self.name != ''", true],
  ["!has(self.name) || self.name.startsWith('a') || self.name.endsWith('c') || self.name.contains('.')", true],
  ["!has(self.name) || self.name.lowerAscii() == 'abc'", true],
  ["!has(self.name) || self.name.size() <= 3", true],
  ["!has(self.name) || self.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')", true],
  ["!has(self.name) || self.name.matches('^[[:alpha:]]+$')", true],
  ["!has(self.name) || !self.name.matches('^a.b$')", true],
  ["!has(self.name) || self.name.matches('^[^.]+[.].+$')", true],
  ["!has(self.name) || self.name in ['abc', 'ABC']", true],
  ["!has(self.count) || (self.count >= 0 && self.count <= 5)", true],
  ['!has(self.on) || !self.on', true],
  ["!has(self.data) || self.data.all(k, k.size() == 1 && self.data[k] != 'z')", false],
  ["!has(self.data) || self.data.all(k, k.size() == 1)", true],
  ["!has(self.data) || 'a' in self.data", true],
  ['!has(self.data) || size(self.data) < 2', true],
  ["!has(self.tags) || self.tags.all(t, t != '')", true],
  ["!has(self.tags) || self.tags.exists(t, t == 'a')", true],
  ["!has(self.tags) || self.tags.filter(t, t == 'a').size() <= 1", true],
  ["!has(self.tags) || 'a' in self.tags", true],
  ["!has(self.refs) || self.refs.all(r, has(r.name) && (has(r.__namespace__) ? r.__namespace__ : '') == '')", true],
  ["!has(self.ref) || self.ref.name + '/' + (has(self.ref.__namespace__) ? self.ref.__namespace__ : '') != '/'", true],
  ["!has(self.name) || self.name.split('.')[0] != 'a'", true],
  ['!has(self.when) || self.when == self.when', true],
  ["!has(self.when) || self.when != '2024-01-01T00:00:00Z'", false],
  ['self == oldSelf', true],
  ['!has(self.set) || !has(oldSelf.set) || self.set == oldSelf.set', true],
  ["(has(self.name) ? self.name : '') == (has(oldSelf.name) ? oldSelf.name : '')", true],
  ['!has(self.name) || !format.dns1123Subdomain().validate(self.name).hasValue()', true],
  ["!has(self.name) || self.name == '' || !format.dns1123Label().validate(self.name).hasValue()", true],
  ['!has(self.name) || !format.dns1035Label().validate(self.name).hasValue()', false],
  ['!has(self.count) || self.count + 1 > 0', false],
  ["!has(self.name) || self.name.trim() != ''", false],
];

describe('CEL rules compiled to JavaScript, with the interpreter as the reference', () => {
  it.each(rules)('%s', (rule, compiles) => {
    const f = fast(rule);
    expect(f !== null, 'compiled').toBe(compiles);
    if (!f) return;
    const interpreted = builtinCelRuleEngine.compileRule({ rule }, scope, definitions);
    let answered = 0;
    for (const self of values) {
      for (const old of interpreted.isTransitionRule ? values : [undefined]) {
        let t = false;
        try {
          t = f(self, old) === true;
        } catch {
          t = false;
        }
        if (!t) continue;
        answered++;
        expect(interpreted.evaluate(self, old), `${JSON.stringify(self)} old ${JSON.stringify(old)}`).toEqual({ ok: true });
      }
    }
    expect(answered).toBeGreaterThan(0);
  });

  it.each([
    ['^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$', true],
    ['^(\\[[^\\]]*\\]|[^:\\[\\]]*):[^:\\[\\]]*$', true],
    ['^a{2,3}$', true],
    ['^metadata\\.(annotations|labels)\\[.+\\]$', true],
    ['^eui.[[:alnum:]]{16}$', false],
    ['iqn\\.\\d{4}', false],
    ['^a\\s$', false],
    ['^(?i)a$', false],
  ] as const)('pattern %s runs in JS on short ASCII text: %s', (pattern, js) => {
    expect(asciiRegExpSource(pattern) !== null).toBe(js);
  });
});
