// One snapshot per artifact kind, taken on the resources the documents describe in most detail
// (ConfigMap, document 1 section 2.2; PersistentVolumeClaim with its status subresource; the
// cluster-scoped CSIDriver). A change to a generator shows up here as a reviewed snapshot diff.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { allRoutes } from '../../out/routes/index.ts';
import type { HandlerName } from '../../runtime/api/operation.ts';

const out = join(import.meta.dirname, '..', '..', 'out');
const read = (p: string) => readFileSync(join(out, p), 'utf8');
const handlers = new Proxy({}, { get: (_t, name) => String(name) }) as Record<HandlerName, string>;

describe('artifact snapshots', () => {
  it('types: ConfigMap', () => {
    const src = read('types/index.ts');
    const start = src.indexOf('export interface ConfigMap {');
    expect(src.slice(start, src.indexOf('\n}\n', start) + 2)).toMatchSnapshot();
  });

  it('openapi: ConfigMap schema and its collection path', () => {
    const doc = JSON.parse(read('openapi/v3/api/v1.json')) as { paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } };
    expect(doc.components.schemas['io.cluster.api.core.v1.ConfigMap']).toMatchSnapshot();
    expect(doc.paths['/api/v1/namespaces/{namespace}/configmaps']).toMatchSnapshot();
  });

  it('routes: every operation of PersistentVolumeClaim and CSIDriver', () => {
    const tables = allRoutes(handlers).filter((t) => t.resource.kind === 'PersistentVolumeClaim' || t.resource.kind === 'CSIDriver');
    expect(tables.map((t) => ({ kind: t.resource.kind, routes: t.routes.map((r) => `${r.method} ${r.path} -> ${r.handler} ${r.successCodes.join(',')}`) }))).toMatchSnapshot();
  });

  it('crds: ConfigMap body', () => {
    expect(parse(read('crds/configmaps.core.crd.cluster.io.yaml'))).toMatchSnapshot();
  });

  it('validators: ConfigMap module', () => {
    expect(read('validators/configmap.ts')).toMatchSnapshot();
  });

  it('rules: the ConfigMap rows of the catalogue', () => {
    expect(read('rules/catalog.md').split('\n').filter((l) => l.startsWith('| ConfigMap '))).toMatchSnapshot();
  });
});
