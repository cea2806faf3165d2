// The server process on `--storage etcd` against a throwaway member: keys under --etcd-prefix, an
// object over etcd's request limit (413, nothing stored), the etcd health check, and etcd going away
// while the server runs (503 Status within the call deadline, watches end, the process lives on).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { etcdSkipReason, startEtcdMember, type EtcdMember } from '../../runtime/storage/etcd-test-member.ts';
import { TestServer } from './harness.ts';

const skip = etcdSkipReason();
if (skip) console.warn(`server on etcd: ${skip}`);

const CM = '/api/v1/namespaces/default/configmaps';

describe.skipIf(skip !== undefined)('the server on --storage etcd', () => {
  let member: EtcdMember;
  let s: TestServer;
  beforeAll(async () => {
    // a 256 KiB request limit: "too large" without megabytes (ConfigMaps themselves stop at 1 MiB)
    member = await startEtcdMember({ maxRequestBytes: 256 * 1024 });
    s = await TestServer.start('memory', undefined, ['--storage', 'etcd', '--etcd-servers', member.endpoint, '--etcd-prefix', '/e2e']);
  });
  afterAll(async () => {
    await s?.stop();
    await member?.stop();
  });

  it('serves writes, reads and watches from etcd, keys under the prefix, resourceVersion = mod revision', async () => {
    const watch = await s.startWatch(`${CM}?watch=1&resourceVersion=0`, 5000, (ev) => ev.length >= 1);
    const created = await s.post(CM, { metadata: { name: 'one' }, data: { a: 'b' } });
    expect(created.status).toBe(201);
    const rv = created.json.metadata.resourceVersion as string;
    const { events } = await watch.result;
    expect(events.map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion])).toEqual([['ADDED', 'one', rv]]);
    const raw = await fetch(`${member.endpoint}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: Buffer.from('/e2e/core/configmaps/default/one').toString('base64') }) });
    const kv = ((await raw.json()) as { kvs: { mod_revision: string; value: string }[] }).kvs[0];
    expect(kv.mod_revision).toBe(rv);
    expect(JSON.parse(Buffer.from(kv.value, 'base64').toString()).data).toEqual({ a: 'b' });
  });

  it('answers an object over etcd\'s request limit with 413, and stores nothing', async () => {
    const r = await s.post(CM, { metadata: { name: 'big' }, data: { a: 'x'.repeat(300 * 1024) } });
    expect(r.status).toBe(413);
    expect(r.json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'RequestEntityTooLarge', code: 413, message: 'Request entity too large: etcdserver: request is too large' });
    expect((await s.get(`${CM}/big`)).status).toBe(404);
  });

  it('lists etcd in /readyz and /healthz', async () => {
    const ready = await s.get('/readyz?verbose');
    expect(ready.status).toBe(200);
    expect(ready.text).toContain('[+]etcd ok');
    expect((await s.get('/healthz/etcd')).text).toBe('ok');
  });

  it('etcd stopped under it: 503 Status, failing health, watches end; the process stays up', async () => {
    const watch = await s.startWatch(`${CM}?watch=1`, 20_000);
    await member.stop();
    const t0 = Date.now();
    const r = await s.get(`${CM}/one`);
    expect(Date.now() - t0).toBeLessThan(11_000);
    expect(r.status).toBe(503);
    expect(r.json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'ServiceUnavailable', code: 503 });
    expect(r.json.message).toMatch(/^etcd unavailable: /);
    // every verb: the storage failure reaches the client as 503, none as a 500
    const verbs: [string, Promise<{ status: number; text: string }>][] = [
      ['create', s.post(CM, { metadata: { name: 'two' } })],
      ['list', s.get(CM)],
      ['list across namespaces', s.get('/api/v1/configmaps?limit=10')],
      ['update', s.put(`${CM}/one`, { metadata: { name: 'one' }, data: { a: 'c' } })],
      ['patch', s.request('PATCH', `${CM}/one`, { raw: '{"data":{"a":"d"}}', headers: { 'Content-Type': 'application/merge-patch+json' } })],
      ['delete', s.delete(`${CM}/one`)],
      ['cluster-scoped get', s.get('/api/v1/namespaces/default')],
    ];
    for (const [verb, p] of verbs) {
      const res = await p;
      expect(res.status, `${verb}: ${res.text}`).toBe(503);
    }
    const ready = await s.get('/readyz?verbose');
    expect(ready.status).toBe(500);
    expect(ready.text).toContain('[-]etcd failed');
    const ended = await watch.result;
    expect(ended.ended).toBe(true);
    expect(s.proc.exitCode).toBe(null);
  }, 30_000);
});
