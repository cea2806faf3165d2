// The Store's GET, as an object and as the rendered JSON text (cached per revision).

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { meta } from '../../api/object.ts';
import { rejection } from '../../errors/test-support.ts';
import { testRegistry, type TestRegistry } from './test-registry.ts';

describe('Store.get and getJson', () => {
  let t: TestRegistry;
  beforeEach(async () => {
    t = await testRegistry();
  });
  afterEach(async () => {
    await t.close();
  });

  it.each([
    { name: 'a missing object', path: 'none', params: {}, want: [404, 'configmaps "none" not found'] },
    { name: 'a resourceVersion that is no number', path: 'a', params: { resourceVersion: 'x' }, want: [400, 'invalid resource version: strconv.ParseUint: parsing "x": invalid syntax'] },
  ])('$name', async ({ path, params, want }) => {
    await t.configMaps.create('default', { metadata: { name: 'a' } });
    const e = await rejection(t.configMaps.get('default', path, params));
    expect([e.code, e.message]).toEqual(want);
    const j = await rejection(t.configMaps.getJson('default', path, params));
    expect([j.code, j.message]).toEqual(want);
  });

  it('renders what get returns, with kind and apiVersion first, and follows every new revision', async () => {
    await t.configMaps.create('default', { metadata: { name: 'a' }, data: { k: '1' } });
    const first = await t.configMaps.getJson('default', 'a');
    expect(first.endsWith('\n')).toBe(true);
    expect(JSON.parse(first)).toEqual({ kind: 'ConfigMap', apiVersion: 'v1', ...(await t.configMaps.get('default', 'a')) });
    expect(Object.keys(JSON.parse(first)).slice(0, 2)).toEqual(['kind', 'apiVersion']);
    expect(await t.configMaps.getJson('default', 'a')).toBe(first);
    const cur = await t.configMaps.get('default', 'a');
    await t.configMaps.update('default', 'a', { ...cur, data: { k: '2' } });
    const second = JSON.parse(await t.configMaps.getJson('default', 'a'));
    expect(second.data).toEqual({ k: '2' });
    expect(second.metadata.resourceVersion).not.toBe(meta(cur).resourceVersion);
  });
});
