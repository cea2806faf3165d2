import { describe, expect, it } from 'vitest';
import { CelCompileError, type Schema, type ValidationRule } from '../schema/types.ts';
import { createCelRuleEngine } from './rules.ts';
import { escapePropertyName } from './schema-types.ts';

type Want = 'ok' | { message: string; reason?: string; fieldPath?: string } | { compile: string } | { error: string };

interface Case {
  name: string;
  schema: Schema;
  rule: string | ValidationRule;
  self: unknown;
  oldSelf?: unknown;
  want: Want;
  defs?: Record<string, Schema>;
}

const engine = createCelRuleEngine();

const obj = (properties: Record<string, Schema>, extra: Partial<Schema> = {}): Schema => ({ type: 'object', properties, ...extra });
const str: Schema = { type: 'string', maxLength: 64 };
const int: Schema = { type: 'integer' };

const deployment = obj({
  replicas: int,
  minReplicas: int,
  maxReplicas: int,
  ratio: { type: 'number' },
  name: str,
  enabled: { type: 'boolean' },
  created: { type: 'string', format: 'date-time' },
  timeout: { type: 'string', format: 'duration' },
  port: { 'x-cluster-int-or-string': true },
  extra: { type: 'object', 'x-cluster-preserve-unknown-fields': true },
  labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 63 }, maxProperties: 16 },
  tags: { type: 'array', items: { type: 'string', maxLength: 16 }, maxItems: 8, 'x-cluster-list-type': 'set' },
  ordered: { type: 'array', items: { type: 'string', maxLength: 16 }, maxItems: 8 },
  ports: {
    type: 'array',
    maxItems: 8,
    'x-cluster-list-type': 'map',
    'x-cluster-list-map-keys': ['name'],
    items: obj({ name: str, port: int }, { required: ['name'] }),
  },
  'foo-bar': str,
  'a.b': str,
  'x/y': str,
  'has__two': str,
  namespace: str,
  'in': str,
  '1bad': str,
});

const cases: Case[] = [
  // types from the schema
  { name: 'int field arithmetic', schema: deployment, rule: 'self.replicas + 1 == 4', self: { replicas: 3 }, want: 'ok' },
  { name: 'int vs double compare', schema: deployment, rule: 'self.ratio < self.replicas', self: { replicas: 3, ratio: 0.5 }, want: 'ok' },
  { name: 'double field is double', schema: deployment, rule: 'self.ratio == 1.0', self: { ratio: 1 }, want: 'ok' },
  { name: 'min <= max', schema: deployment, rule: 'self.minReplicas <= self.maxReplicas', self: { minReplicas: 5, maxReplicas: 3 }, want: { message: 'failed rule: self.minReplicas <= self.maxReplicas' } },
  { name: 'timestamp field', schema: deployment, rule: "self.created > timestamp('2020-01-01T00:00:00Z')", self: { created: '2024-05-01T10:00:00Z' }, want: 'ok' },
  { name: 'duration field', schema: deployment, rule: "self.timeout <= duration('1h')", self: { timeout: '90m' }, want: { message: "failed rule: self.timeout <= duration('1h')" } },
  { name: 'int-or-string is dyn (int)', schema: deployment, rule: 'type(self.port) == int && self.port == 80', self: { port: 80 }, want: 'ok' },
  { name: 'int-or-string is dyn (string)', schema: deployment, rule: "type(self.port) == string", self: { port: 'http' }, want: 'ok' },
  { name: 'preserve-unknown is dyn', schema: deployment, rule: 'self.extra.a.b == 1', self: { extra: { a: { b: 1 } } }, want: 'ok' },
  { name: 'map from additionalProperties', schema: deployment, rule: "'app' in self.labels && self.labels['app'] == 'web'", self: { labels: { app: 'web' } }, want: 'ok' },
  { name: 'has() on map key', schema: deployment, rule: 'has(self.labels.app)', self: { labels: { app: 'web' } }, want: 'ok' },
  { name: 'has() on absent field', schema: deployment, rule: '!has(self.name)', self: {}, want: 'ok' },
  { name: 'null field counts as absent', schema: deployment, rule: '!has(self.name)', self: { name: null }, want: 'ok' },
  { name: 'macros over list', schema: deployment, rule: "self.ordered.all(t, t.size() < 5) && self.ordered.exists(t, t == 'a')", self: { ordered: ['a', 'bc'] }, want: 'ok' },
  { name: 'map macro', schema: deployment, rule: "self.ports.map(p, p.port).exists(p, p == 80)", self: { ports: [{ name: 'http', port: 80 }] }, want: 'ok' },
  { name: 'scalar scope', schema: { type: 'integer' }, rule: 'self >= 0', self: -1, want: { message: 'failed rule: self >= 0' } },
  { name: 'string scope', schema: { type: 'string', maxLength: 10 }, rule: "self.startsWith('a')", self: 'abc', want: 'ok' },
  { name: 'list scope', schema: { type: 'array', items: { type: 'integer' }, maxItems: 10 }, rule: 'self.all(x, x > 0) && self[0] == 1', self: [1, 2], want: 'ok' },

  // compile errors
  { name: 'unknown field', schema: deployment, rule: 'self.nope == 1', self: {}, want: { compile: 'No such key: nope' } },
  { name: 'has() of an undeclared field (cel-go: undefined field)', schema: deployment, rule: 'has(self.nope)', self: {}, want: { compile: "<input>:1:4: undefined field 'nope'" } },
  { name: 'has() on preserve-unknown-fields', schema: deployment, rule: 'has(self.extra.anything)', self: { extra: { anything: 1 } }, want: 'ok' },
  { name: 'type error', schema: deployment, rule: "self.replicas + 'a' == 1", self: {}, want: { compile: 'no such overload' } },
  { name: 'not bool', schema: deployment, rule: 'self.replicas', self: {}, want: { compile: 'must evaluate to a bool' } },
  { name: 'syntax error', schema: deployment, rule: 'self.replicas ==', self: {}, want: { compile: 'compilation failed' } },
  { name: 'bad regex literal', schema: deployment, rule: "self.name.matches('[a-')", self: {}, want: { compile: 'invalid regular expression' } },
  { name: 'unknown reason', schema: deployment, rule: { rule: 'true', reason: 'Nope' }, self: {}, want: { compile: 'reason' } },

  // escaping
  { name: 'dash escaped', schema: deployment, rule: "self.foo__dash__bar == 'x'", self: { 'foo-bar': 'x' }, want: 'ok' },
  { name: 'dot escaped', schema: deployment, rule: "self.a__dot__b == 'x'", self: { 'a.b': 'x' }, want: 'ok' },
  { name: 'slash escaped', schema: deployment, rule: "self.x__slash__y == 'x'", self: { 'x/y': 'x' }, want: 'ok' },
  { name: 'underscores escaped', schema: deployment, rule: "self.has__underscores__two == 'x'", self: { has__two: 'x' }, want: 'ok' },
  { name: 'reserved word escaped', schema: deployment, rule: "self.__namespace__ == 'x' && self.__in__ == 'y'", self: { namespace: 'x', in: 'y' }, want: 'ok' },
  { name: 'invalid name invisible', schema: deployment, rule: 'has(self.1bad)', self: {}, want: { compile: 'compilation failed' } },
  { name: 'unescaped dash name unknown', schema: deployment, rule: "self.foo_bar == 'x'", self: {}, want: { compile: 'No such key' } },

  // resources
  {
    name: 'root metadata.name visible',
    schema: obj({ apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, spec: obj({ x: int }) }),
    rule: "self.metadata.name.startsWith('web') && self.kind == 'Foo'",
    self: { apiVersion: 'x.cluster.io/v1', kind: 'Foo', metadata: { name: 'web-1', labels: { a: 'b' } }, spec: { x: 1 } },
    want: 'ok',
  },
  {
    name: 'root other metadata invisible',
    schema: obj({ apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: obj({ labels: { type: 'object', additionalProperties: { type: 'string' } } }) }),
    rule: 'size(self.metadata.labels) > 0',
    self: {},
    want: { compile: 'No such key: labels' },
  },
  {
    name: 'embedded resource',
    schema: obj({ template: { type: 'object', 'x-cluster-embedded-resource': true, 'x-cluster-preserve-unknown-fields': true } }),
    rule: "self.template.kind == 'Pod' && self.template.metadata.generateName == 'p-'",
    self: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { generateName: 'p-' } } },
    want: 'ok',
  },

  // transition rules
  { name: 'transition rule immutable', schema: deployment, rule: { rule: 'self.name == oldSelf.name', message: 'name is immutable' }, self: { name: 'a' }, oldSelf: { name: 'b' }, want: { message: 'name is immutable' } },
  { name: 'transition rule skipped on create', schema: deployment, rule: 'self.name == oldSelf.name', self: { name: 'a' }, want: 'ok' },
  { name: 'optionalOldSelf on create', schema: deployment, rule: { rule: '!oldSelf.hasValue() || self.replicas >= oldSelf.value().replicas', optionalOldSelf: true }, self: { replicas: 1 }, want: 'ok' },
  { name: 'optionalOldSelf on update', schema: deployment, rule: { rule: '!oldSelf.hasValue() || self.replicas >= oldSelf.value().replicas', optionalOldSelf: true }, self: { replicas: 1 }, oldSelf: { replicas: 2 }, want: { message: 'failed rule: !oldSelf.hasValue() || self.replicas >= oldSelf.value().replicas' } },
  { name: 'optionalOldSelf optional field', schema: deployment, rule: { rule: 'oldSelf.?replicas.orValue(0) <= self.replicas', optionalOldSelf: true }, self: { replicas: 1 }, want: 'ok' },
  { name: 'optionalOldSelf without oldSelf', schema: deployment, rule: { rule: 'self.replicas > 0', optionalOldSelf: true }, self: {}, want: { compile: 'optionalOldSelf' } },
  { name: 'scalar transition', schema: { type: 'string', maxLength: 10 }, rule: 'self == oldSelf', self: 'a', oldSelf: 'a', want: 'ok' },
  { name: 'object equality in transition', schema: deployment, rule: 'self == oldSelf', self: { name: 'a', replicas: 1, tags: ['x', 'y'] }, oldSelf: { replicas: 1, name: 'a', tags: ['y', 'x'] }, want: 'ok' },

  // messages and reasons
  { name: 'messageExpression', schema: deployment, rule: { rule: 'self.replicas < 5', messageExpression: "'too many: ' + string(self.replicas)" }, self: { replicas: 7 }, want: { message: 'too many: 7' } },
  { name: 'messageExpression error falls back to message', schema: deployment, rule: { rule: 'self.replicas < 5', message: 'm', messageExpression: "'x' + self.name" }, self: { replicas: 7 }, want: { message: 'm' } },
  { name: 'messageExpression empty falls back to default', schema: deployment, rule: { rule: 'self.replicas < 5', messageExpression: "''" }, self: { replicas: 7 }, want: { message: 'failed rule: self.replicas < 5' } },
  { name: 'messageExpression whitespace falls back', schema: deployment, rule: { rule: 'self.replicas < 5', message: 'm', messageExpression: "'  '" }, self: { replicas: 7 }, want: { message: 'm' } },
  { name: 'messageExpression multi-line falls back', schema: deployment, rule: { rule: 'self.replicas < 5', message: 'm', messageExpression: "'a\\nb'" }, self: { replicas: 7 }, want: { message: 'm' } },
  { name: 'messageExpression must be string', schema: deployment, rule: { rule: 'true', messageExpression: '1' }, self: {}, want: { compile: 'messageExpression' } },
  { name: 'reason and fieldPath', schema: deployment, rule: { rule: 'self.replicas < 5', reason: 'FieldValueForbidden', fieldPath: '.replicas' }, self: { replicas: 7 }, want: { message: 'failed rule: self.replicas < 5', reason: 'FieldValueForbidden', fieldPath: '.replicas' } },
  { name: 'fieldPath with brackets', schema: deployment, rule: { rule: 'false', fieldPath: ".labels['a.b']" }, self: {}, want: { message: 'failed rule: false', fieldPath: ".labels['a.b']" } },
  { name: 'invalid fieldPath', schema: deployment, rule: { rule: 'true', fieldPath: '.nope' }, self: {}, want: { compile: 'fieldPath' } },
  { name: 'message with newline rejected', schema: deployment, rule: { rule: 'true', message: 'a\nb' }, self: {}, want: { compile: 'line breaks' } },
  { name: 'multi-line rule needs message', schema: deployment, rule: 'true &&\ntrue', self: {}, want: { compile: 'message must be specified' } },

  // list types
  { name: 'set equality ignores order', schema: deployment, rule: 'self.tags == oldSelf.tags', self: { tags: ['a', 'b'] }, oldSelf: { tags: ['b', 'a'] }, want: 'ok' },
  { name: 'atomic list equality keeps order', schema: deployment, rule: 'self.ordered == oldSelf.ordered', self: { ordered: ['a', 'b'] }, oldSelf: { ordered: ['b', 'a'] }, want: { message: 'failed rule: self.ordered == oldSelf.ordered' } },
  { name: 'map list equality ignores order', schema: deployment, rule: 'self.ports == oldSelf.ports', self: { ports: [{ name: 'a', port: 1 }, { name: 'b', port: 2 }] }, oldSelf: { ports: [{ name: 'b', port: 2 }, { name: 'a', port: 1 }] }, want: 'ok' },
  { name: 'map list equality compares values', schema: deployment, rule: 'self.ports == oldSelf.ports', self: { ports: [{ name: 'a', port: 1 }] }, oldSelf: { ports: [{ name: 'a', port: 2 }] }, want: { message: 'failed rule: self.ports == oldSelf.ports' } },
  { name: 'set concatenation', schema: deployment, rule: "self.tags + ['c', 'a'] == ['a', 'b', 'c'] && (self.tags + ['c', 'a'])[2] == 'c'", self: { tags: ['a', 'b'] }, want: 'ok' },
  { name: 'set concatenation keeps X order', schema: deployment, rule: "(self.tags + ['a', 'z'])[0] == 'b' && size(self.tags + ['a', 'z']) == 3", self: { tags: ['b', 'a'] }, want: 'ok' },
  {
    name: 'map list concatenation overrides',
    schema: deployment,
    rule: "(self.ports + oldSelf.ports).map(p, p.name) == ['a', 'b', 'c'] && (self.ports + oldSelf.ports)[1].port == 20",
    self: { ports: [{ name: 'a', port: 1 }, { name: 'b', port: 2 }] },
    oldSelf: { ports: [{ name: 'b', port: 20 }, { name: 'c', port: 3 }] },
    want: 'ok',
  },

  // engine deviations fixed by our layer
  { name: 'int overflow on add', schema: deployment, rule: 'self.replicas + 9223372036854775807 > 0', self: { replicas: 1 }, want: { error: 'overflow' } },
  { name: 'int overflow on negation', schema: deployment, rule: '-(self.replicas - 9223372036854775807 - 2) > 0', self: { replicas: 1 }, want: { error: 'overflow' } },
  { name: 'int overflow on division', schema: deployment, rule: '(self.replicas - 9223372036854775807 - 2) / -1 > 0', self: { replicas: 1 }, want: { error: 'overflow' } },
  { name: 'int(double) range', schema: deployment, rule: 'int(self.ratio) > 0', self: { ratio: 1e300 }, want: { error: 'range' } },
  { name: 'empty list literal all', schema: deployment, rule: '[].all(x, x > 1)', self: {}, want: 'ok' },
  { name: 'has() on map value field', schema: deployment, rule: "has(self.labels.missing) == false", self: { labels: {} }, want: 'ok' },
  { name: 'runtime error is an error', schema: deployment, rule: "self.labels['missing'] == 'x'", self: { labels: {} }, want: { error: 'No such key' } },

  // regex through RE2
  { name: 'catastrophic regex finishes', schema: deployment, rule: "self.name.matches('^(a+)+$')", self: { name: `${'a'.repeat(40)}b` }, want: { message: "failed rule: self.name.matches('^(a+)+$')" } },
  { name: 'matches partial', schema: deployment, rule: "self.name.matches('b+') && matches(self.name, '^a')", self: { name: 'abbc' }, want: 'ok' },
  { name: 'find', schema: deployment, rule: "self.name.find('[0-9]+') == '123'", self: { name: 'ab123cd45' }, want: 'ok' },
  { name: 'findAll', schema: deployment, rule: "self.name.findAll('[0-9]+') == ['123', '45'] && self.name.findAll('[0-9]+', 1) == ['123']", self: { name: 'ab123cd45' }, want: 'ok' },
  { name: 'find leftmost-first', schema: deployment, rule: "self.name.find('a|ab') == 'a'", self: { name: 'xab' }, want: 'ok' },

  // cost
  {
    name: 'unbounded list of unbounded strings rejected',
    schema: { type: 'array', items: { type: 'string' } },
    rule: "self.all(x, x.matches('^[a-z]+$'))",
    self: [],
    want: { compile: 'estimated rule cost exceeds budget' },
  },
  {
    name: 'bounded list of bounded strings accepted',
    schema: { type: 'array', items: { type: 'string', maxLength: 64 }, maxItems: 100 },
    rule: "self.all(x, x.matches('^[a-z]+$'))",
    self: ['abc'],
    want: 'ok',
  },
  {
    name: 'nested unbounded iteration rejected',
    schema: { type: 'array', items: { type: 'integer' } },
    rule: 'self.all(x, self.all(y, x != y || x == y))',
    self: [],
    want: { compile: 'estimated rule cost exceeds budget' },
  },
];

describe('x-cluster-validations rules', () => {
  for (const c of cases) {
    it(c.name, () => {
      const rule: ValidationRule = typeof c.rule === 'string' ? { rule: c.rule } : c.rule;
      const want = c.want;
      if (typeof want === 'object' && 'compile' in want) {
        let err: unknown;
        try {
          engine.compileRule(rule, c.schema, c.defs ?? {});
        } catch (e) {
          err = e;
        }
        expect(err).toBeInstanceOf(CelCompileError);
        expect((err as Error).message).toContain(want.compile);
        return;
      }
      const compiled = engine.compileRule(rule, c.schema, c.defs ?? {});
      const res = compiled.evaluate(c.self, c.oldSelf);
      if (want === 'ok') expect(res).toEqual({ ok: true });
      else if ('error' in want) {
        expect(res.ok).toBe(false);
        expect('error' in res ? res.error : '').toContain(want.error);
      } else {
        expect(res).toMatchObject({ ok: false, message: want.message, reason: want.reason ?? 'FieldValueInvalid' });
        if (want.fieldPath) expect(res).toMatchObject({ fieldPath: want.fieldPath });
      }
    });
  }

  it('reports compile positions', () => {
    try {
      engine.compileRule({ rule: 'self.replicas == 1 &&\n  self.nope' , message: 'm'}, deployment, {});
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(CelCompileError);
      expect((e as CelCompileError).position?.line).toBe(2);
    }
  });

  it('marks transition rules', () => {
    expect(engine.compileRule({ rule: 'self == oldSelf' }, deployment, {}).isTransitionRule).toBe(true);
    expect(engine.compileRule({ rule: 'self.replicas > 0' }, deployment, {}).isTransitionRule).toBe(false);
  });

  it('bounds evaluation at run time', () => {
    const small = createCelRuleEngine({ perCallLimit: 1000 });
    const r = small.compileRule({ rule: 'self.all(x, self.all(y, x == y || x != y))' }, { type: 'array', items: { type: 'integer' }, maxItems: 100 }, {});
    const res = r.evaluate(Array.from({ length: 100 }, (_, i) => i), undefined);
    expect(res).toMatchObject({ ok: false, error: expect.stringContaining('cost budget') });
  });

  it('compiles once, evaluates many times', () => {
    const r = engine.compileRule({ rule: 'self.replicas > 0' }, deployment, {});
    for (let i = 0; i < 1000; i++) expect(r.evaluate({ replicas: i + 1 }, undefined)).toEqual({ ok: true });
  });

  it('resolves $ref and recursive definitions', () => {
    const defs: Record<string, Schema> = {
      Node: obj({ value: int, children: { type: 'array', maxItems: 4, items: { $ref: '#/components/schemas/Node' } } }),
    };
    const r = engine.compileRule({ rule: 'self.children.all(c, c.value > self.value)' }, { $ref: '#/components/schemas/Node' }, defs);
    expect(r.evaluate({ value: 1, children: [{ value: 2, children: [] }] }, undefined)).toEqual({ ok: true });
    expect(r.evaluate({ value: 3, children: [{ value: 2 }] }, undefined)).toMatchObject({ ok: false });
  });

  it('escapes property names', () => {
    expect(escapePropertyName('foo-bar')).toBe('foo__dash__bar');
    expect(escapePropertyName('a__b')).toBe('a__underscores__b');
    expect(escapePropertyName('a.b/c')).toBe('a__dot__b__slash__c');
    expect(escapePropertyName('return')).toBe('__return__');
    expect(escapePropertyName('1x')).toBeUndefined();
    expect(escapePropertyName('a b')).toBeUndefined();
  });
});
