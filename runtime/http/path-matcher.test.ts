import { describe, expect, it } from 'vitest';
import { PathMatcher } from './path-matcher.ts';

describe('path matcher', () => {
  const m = new PathMatcher<string>();
  const routes: [string, string, string][] = [
    ['GET', '/api/v1/namespaces', 'list-ns'],
    ['GET', '/api/v1/namespaces/{name}', 'get-ns'],
    ['GET', '/api/v1/namespaces/{name}/status', 'get-ns-status'],
    ['GET', '/api/v1/namespaces/{namespace}/configmaps', 'list-cm'],
    ['POST', '/api/v1/namespaces/{namespace}/configmaps', 'create-cm'],
    ['GET', '/api/v1/namespaces/{namespace}/configmaps/{name}', 'get-cm'],
    ['GET', '/api/v1/watch/namespaces/{namespace}/configmaps', 'watch-cm'],
    ['GET', '/apis/storage.cluster.io/v1/storageclasses/{name}', 'get-sc'],
  ];
  for (const [method, path, v] of routes) m.add(path, method, v);

  const cases: [string, { path: string; method: string; want?: string; params?: Record<string, string> }][] = [
    ['literal', { path: '/api/v1/namespaces', method: 'GET', want: 'list-ns', params: {} }],
    ['one parameter', { path: '/api/v1/namespaces/default', method: 'GET', want: 'get-ns', params: { name: 'default' } }],
    ['literal beats parameter', { path: '/api/v1/namespaces/default/status', method: 'GET', want: 'get-ns-status', params: { name: 'default' } }],
    ['namespaced list', { path: '/api/v1/namespaces/ns1/configmaps', method: 'GET', want: 'list-cm', params: { namespace: 'ns1' } }],
    ['method on the same template', { path: '/api/v1/namespaces/ns1/configmaps', method: 'POST', want: 'create-cm', params: { namespace: 'ns1' } }],
    ['two parameters', { path: '/api/v1/namespaces/ns1/configmaps/c%201', method: 'GET', want: 'get-cm', params: { namespace: 'ns1', name: 'c 1' } }],
    ['legacy watch', { path: '/api/v1/watch/namespaces/ns1/configmaps', method: 'GET', want: 'watch-cm', params: { namespace: 'ns1' } }],
    ['group path', { path: '/apis/storage.cluster.io/v1/storageclasses/fast', method: 'GET', want: 'get-sc', params: { name: 'fast' } }],
    ['unknown', { path: '/api/v1/nothing/here/at/all', method: 'GET' }],
    ['too short', { path: '/api', method: 'GET' }],
    ['empty segment is no parameter', { path: '/api/v1/namespaces//configmaps', method: 'GET' }],
  ];
  it.each(cases)('%s', (_n, { path, method, want, params }) => {
    const r = m.match(path);
    if (want === undefined) {
      expect(r).toBeUndefined();
      return;
    }
    expect(r?.byMethod.get(method)).toBe(want);
    expect(r?.params).toEqual(params);
  });

  it('answers a repeated path from its cache, and forgets the cache when a route is added', () => {
    const fresh = new PathMatcher<string>();
    fresh.add('/apis/x.cluster.io/v1/things/{name}', 'GET', 'get-thing');
    expect(fresh.match('/apis/x.cluster.io/v1/widgets/a')).toBeUndefined();
    expect(fresh.match('/apis/x.cluster.io/v1/things/a')).toBe(fresh.match('/apis/x.cluster.io/v1/things/a'));
    fresh.add('/apis/x.cluster.io/v1/widgets/{name}', 'GET', 'get-widget');
    expect(fresh.match('/apis/x.cluster.io/v1/widgets/a')?.byMethod.get('GET')).toBe('get-widget');
  });

  it('refuses a duplicate route', () => {
    expect(() => m.add('/api/v1/namespaces', 'GET', 'again')).toThrow(/duplicate/);
  });
});
