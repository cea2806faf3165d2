import { describe, expect, it } from 'vitest';
import { CelCompileError } from '../schema/types.ts';
import { compileExpression } from './index.ts';

const cases: { name: string; expr: string; want: unknown }[] = [
  { name: 'charAt code points', expr: "'héllo'.charAt(1) == 'é'", want: true },
  { name: 'indexOf code points', expr: "'héllo wörld'.indexOf('w') == 6", want: true },
  { name: 'lowerAscii ASCII only', expr: "'ÀB'.lowerAscii() == 'Àb'", want: true },
  { name: 'upperAscii ASCII only', expr: "'àb'.upperAscii() == 'àB'", want: true },
  { name: 'replace n', expr: "'aaa'.replace('a', 'b', 2) == 'bba'", want: true },
  { name: 'split n', expr: "'a,b,c'.split(',', 2) == ['a', 'b,c']", want: true },
  { name: 'substring code points', expr: "'héllo'.substring(1, 3) == 'él'", want: true },
  { name: 'trim', expr: "'  x \\t'.trim() == 'x'", want: true },
  { name: 'join', expr: "['a', 'b'].join('-') == 'a-b'", want: true },
  // cel-go's homogeneous-literal validator exempts literals inside format() arguments
  { name: 'format mixed argument list', expr: "'%s=%d %.1f'.format(['a', 1, 2.5]) == 'a=1 2.5'", want: true },
  { name: 'mixed list outside format', expr: "['a', 1].size() == 2", want: 'compile' },
  { name: 'int of uint', expr: "int(7u) == 7", want: true },
  { name: 'int of uint overflow', expr: "int(18446744073709551615u) == 0", want: false },
  { name: 'format dyn', expr: "'%s=%d'.format([dyn('a'), dyn(1)]) == 'a=1'", want: true },
  { name: 'quote', expr: "strings.quote('a\"b') == '\"a\\\\\"b\"'", want: true },
  { name: 'reverse', expr: "'abc'.reverse() == 'cba'", want: true },
  { name: 'isSorted', expr: '[1, 2, 2].isSorted() && ![2, 1].isSorted()', want: true },
  { name: 'sum min max', expr: '[1, 2, 3].sum() == 6 && [3, 1].min() == 1 && [3, 1].max() == 3', want: true },
  { name: 'list indexOf', expr: "[1, 2, 1].indexOf(1) == 0 && [1, 2, 1].lastIndexOf(1) == 2", want: true },
  { name: 'sets', expr: 'sets.contains([1, 2], [2]) && sets.equivalent([1, 2], [2, 1]) && !sets.intersects([1], [2])', want: true },
  { name: 'two-var all over list', expr: '[1, 2].all(i, v, v == i + 1)', want: true },
  { name: 'two-var exists over map', expr: "{'a': 1}.exists(k, v, k == 'a' && v == 1)", want: true },
  { name: 'existsOne', expr: '[1, 2, 3].existsOne(i, v, v > 2)', want: true },
  { name: 'transformList', expr: '[1, 2].transformList(i, v, v * 10) == [10, 20]', want: true },
  { name: 'transformMap', expr: "{'a': 1}.transformMap(k, v, v + 1) == {'a': 2}", want: true },
  { name: 'url', expr: "url('https://example.com:8443/p?q=1').getPort() == '8443' && url('https://example.com/p').getScheme() == 'https'", want: true },
  { name: 'isURL', expr: "isURL('https://a.b/c') && !isURL('a b')", want: true },
  { name: 'ip', expr: "ip('10.0.0.1').family() == 4 && ip('::1').isLoopback() && !isIP('::ffff:1.2.3.4')", want: true },
  { name: 'cidr', expr: "cidr('10.0.0.0/8').containsIP(ip('10.2.3.4')) && cidr('10.0.0.0/8').prefixLength() == 8 && string(cidr('10.1.2.3/8').masked()) == '10.0.0.0/8'", want: true },
  { name: 'ip canonical', expr: "ip.isCanonical('2001:db8::1') && !ip.isCanonical('2001:DB8::1')", want: true },
  { name: 'semver', expr: "semver('1.2.3').isLessThan(semver('1.10.0')) && semver('1.2.3').major() == 1 && isSemver('v1.2', true)", want: true },
  { name: 'format named', expr: "format.named('dns1123Label').value().validate('Abc').hasValue() && !format.dns1123Label().validate('abc').hasValue()", want: true },
  { name: 'quantity', expr: "quantity('1Gi').isGreaterThan(quantity('1G')) && quantity('500m').asApproximateFloat() == 0.5 && quantity('2') == quantity('2000m')", want: true },
  { name: 'quantity arithmetic', expr: "quantity('1k').add(quantity('1')).asInteger() == 1001 && quantity('1').sub(2).sign() == -1", want: true },
  { name: 'isQuantity', expr: "isQuantity('1Gi') && !isQuantity('1.5.5')", want: true },
  { name: 'find', expr: "'ab123cd45'.find('[0-9]+') == '123'", want: true },
  { name: 'findAll', expr: "'ab123cd45'.findAll('[0-9]+') == ['123', '45']", want: true },
  { name: 'type error at compile time', expr: "('a' * 1).size() == 1", want: 'compile' },
];

describe('platform libraries', () => {
  for (const c of cases) {
    it(c.name, () => {
      if (c.want === 'compile') {
        expect(() => compileExpression(c.expr, {})).toThrow(CelCompileError);
        return;
      }
      let result: unknown;
      try {
        result = compileExpression(c.expr, {}).evaluate({});
      } catch (e) {
        if (c.want === false) return;
        throw e;
      }
      expect(result).toBe(c.want);
    });
  }

  it('catastrophic regex finishes with the right verdict', () => {
    const e = compileExpression("s.matches('^(a+)+$')", { s: 'string' });
    expect(e.evaluate({ s: `${'a'.repeat(5000)}b` })).toBe(false);
    expect(e.evaluate({ s: 'a'.repeat(5000) })).toBe(true);
  });

  it('matchConditions-style variables', () => {
    const e = compileExpression("object.metadata.labels['env'] == 'prod' && request.operation == 'CREATE'", { object: 'dyn', oldObject: 'dyn', request: 'map<string, dyn>' });
    expect(e.evaluate({ object: { metadata: { labels: { env: 'prod' } } }, oldObject: null, request: { operation: 'CREATE' } })).toBe(true);
  });

  it('rejects invalid regex literals at compile time', () => {
    expect(() => compileExpression("'a'.matches('(')", {})).toThrow(CelCompileError);
  });
});
