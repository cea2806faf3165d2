// The example project (examples/widgets) against a real server: its generated CRDs are applied, and
// for every fixture the server (a create with dryRun=All, or a stored object then an update) and the
// offline validators generated from the same spec give the same verdict, the one the fixture expects.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE, exampleFixtures, offlineErrors, type ExampleFixture } from './example-fixtures.ts';
import { eventually, TestServer } from './harness.ts';

const CRDS = '/apis/apiextensions.cluster.io/v1/customresourcedefinitions';
const PLURALS: Record<string, string> = { Widget: 'widgets', WidgetClass: 'widgetclasses' };

function collection(o: Record<string, unknown>): string {
  const meta = o.metadata as { namespace?: string };
  const ns = meta.namespace ? `/namespaces/${meta.namespace}` : '';
  return `/apis/${String(o.apiVersion)}${ns}/${PLURALS[String(o.kind)]}`;
}

let server: TestServer;

beforeAll(async () => {
  server = await TestServer.start('memory');
  const dir = join(EXAMPLE, 'out', 'crds');
  for (const file of readdirSync(dir).sort()) {
    const crd = parse(readFileSync(join(dir, file), 'utf8')) as { metadata: { name: string } };
    const r = await server.post(CRDS, crd);
    expect(r.status, r.text).toBe(201);
    await eventually(async () => {
      const g = await server.get(`${CRDS}/${crd.metadata.name}`);
      const established = (g.json.status?.conditions ?? []).find((c: { type: string }) => c.type === 'Established');
      return established?.status === 'True';
    });
  }
});
afterAll(async () => server?.stop());

/** The server's verdict: 201/200 accepted, 422 Invalid (with its causes); anything else fails the test. */
async function serverVerdict(f: ExampleFixture): Promise<{ valid: boolean; fields: string[]; text: string }> {
  const url = collection(f.object);
  let r;
  if (f.old) {
    const created = await server.post(url, f.old);
    expect(created.status, created.text).toBe(201);
    const body = structuredClone(f.object) as { metadata: Record<string, unknown> };
    body.metadata.resourceVersion = created.json.metadata.resourceVersion;
    r = await server.request('PUT', `${url}/${String(body.metadata.name)}`, { body });
  } else r = await server.post(`${url}?dryRun=All`, f.object);
  expect([200, 201, 422], r.text).toContain(r.status);
  const causes = (r.json?.details?.causes ?? []) as Array<{ field: string }>;
  return { valid: r.status !== 422, fields: causes.map((c) => c.field), text: r.text };
}

describe('examples/widgets: the server and the offline validators agree on every fixture', () => {
  it.each(exampleFixtures())('$name', async (f) => {
    const offline = await offlineErrors(f);
    const online = await serverVerdict(f);
    expect(offline.length === 0, JSON.stringify(offline)).toBe(f.valid);
    expect(online.valid, online.text).toBe(f.valid);
    // Both name the fields the fixture expects.
    expect(offline.map((e) => e.field)).toEqual(expect.arrayContaining(f.fields));
    expect(online.fields).toEqual(expect.arrayContaining(f.fields));
  });
});
