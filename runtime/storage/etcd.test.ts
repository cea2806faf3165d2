// What the etcd backend adds to the conformance suite: start-up errors, etcd's request limit, an
// unreachable etcd, the periodic compaction shared by replicas, progress notifications, key prefixes.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectEtcdStorage, parseEtcdServers, type EtcdFlags } from './etcd-connect.ts';
import { parseDurationSeconds } from '../go-duration.ts';
import { etcdSkipReason, freePort, makeEtcdTlsFiles, startEtcdMember, type EtcdMember, type EtcdTlsFiles } from './etcd-test-member.ts';
import { EtcdStorage, type EtcdWatchHandle } from './etcd.ts';
import { isStorageError, type StorageError } from './interface.ts';
import { collect } from './test-support.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const skip = etcdSkipReason();
if (skip) console.warn(`etcd backend: ${skip}`);

async function rejection(p: Promise<unknown>): Promise<StorageError> {
  try {
    await p;
  } catch (e) {
    if (isStorageError(e)) return e;
    throw e;
  }
  throw new Error('expected a StorageError, got success');
}

describe('etcd flags', () => {
  it.each([
    ['5m', 300],
    ['300s', 300],
    ['1h30m', 5400],
    ['5m0s', 300],
    ['0', 0],
    ['90', 90],
    ['1500ms', 1.5],
    ['5x', undefined],
    ['m5', undefined],
    ['', undefined],
  ])('duration %j is %j seconds', (text, want) => {
    expect(parseDurationSeconds(text)).toBe(want);
  });

  it.each([
    ['http://127.0.0.1:2379', ['http://127.0.0.1:2379']],
    ['https://a:2379, https://b:2379', ['https://a:2379', 'https://b:2379']],
    ['127.0.0.1:2379', 'not a client URL'],
    ['http://127.0.0.1', 'not a client URL'],
    ['ftp://127.0.0.1:2379', 'not a client URL'],
    ['http://127.0.0.1:2379/v3', 'not a client URL'],
    [',', 'no endpoint given'],
  ])('--etcd-servers %j', (text, want) => {
    if (Array.isArray(want)) expect(parseEtcdServers(text)).toEqual(want);
    else expect(() => parseEtcdServers(text)).toThrow(want);
  });
});

describe.skipIf(skip !== undefined)('etcd backend against a throwaway member', () => {
  let member: EtcdMember;
  let small: EtcdMember;
  const dirs: string[] = [];
  beforeAll(async () => {
    // a member with a 64 KiB request limit, so that "too large" needs no megabytes
    [member, small] = await Promise.all([startEtcdMember({ progressNotifyIntervalMs: 200 }), startEtcdMember({ maxRequestBytes: 64 * 1024 })]);
  });
  afterAll(async () => {
    await Promise.all([member?.stop(), small?.stop()]);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  describe('start-up errors: one line naming the endpoint and the cause, within a few seconds', () => {
    const cases: { name: string; flags: () => Promise<EtcdFlags>; code: string; text: RegExp }[] = [
      {
        name: 'nothing listening',
        flags: async () => ({ servers: `http://127.0.0.1:${await freePort()}` }),
        code: 'Unavailable',
        text: /^cannot reach etcd at http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/,
      },
      {
        name: 'TLS to a plain-HTTP member',
        flags: async () => ({ servers: member.endpoint.replace('http:', 'https:') }),
        code: 'Unavailable',
        text: /^cannot reach etcd at https:\/\/127\.0\.0\.1:\d+: /,
      },
      { name: 'not a URL', flags: async () => ({ servers: 'etcd-host' }), code: 'Invalid', text: /^etcd endpoint "etcd-host": not a client URL/ },
      {
        name: 'a CA file that does not exist',
        flags: async () => ({ servers: 'https://127.0.0.1:2379', caFile: '/nonexistent/ca.crt' }),
        code: 'Invalid',
        text: /^--etcd-cafile \/nonexistent\/ca\.crt: ENOENT$/,
      },
      {
        name: 'a client certificate without its key',
        flags: async () => ({ servers: 'https://127.0.0.1:2379', certFile: '/etc/hostname' }),
        code: 'Invalid',
        text: /^--etcd-certfile and --etcd-keyfile go together$/,
      },
    ];
    it.each(cases)('$name', async ({ flags, code, text }) => {
      const t0 = Date.now();
      const err = await rejection(connectEtcdStorage(await flags()));
      expect(Date.now() - t0).toBeLessThan(5000);
      expect(err.code).toBe(code);
      expect(err.message).toMatch(text);
      expect(err.message).not.toContain('\n');
    });

    it('one reachable endpoint of two is enough, with a warning naming the other', async () => {
      const dead = `http://127.0.0.1:${await freePort()}`;
      const { storage, warnings } = await connectEtcdStorage({ servers: `${dead},${member.endpoint}`, compactionIntervalSeconds: 0 });
      try {
        expect(warnings).toEqual([expect.stringContaining(dead)]);
        // every call lands: one that picked the dead endpoint goes on to the live one
        const revs = await Promise.all(Array.from({ length: 20 }, (_, i) => storage.create(`/core/configmaps/two/k${i}`, 'v')));
        expect(new Set(revs).size).toBe(20);
        expect((await storage.list('/core/configmaps/two/')).items).toHaveLength(20);
      } finally {
        await storage.close();
      }
    });

    it.each([
      ['nothing listening', async () => `http://127.0.0.1:${await freePort()}`, /ECONNREFUSED/],
      ['TLS to a plain-HTTP member', async () => member.endpoint.replace('http:', 'https:'), /\S/],
      ['not a URL', async () => 'etcd-host:2379', /not a client URL/],
    ])('the server process: %s exits 1 with one line on stderr', async (_name, endpointOf, cause) => {
      const dir = mkdtempSync(join(tmpdir(), 'clusterspec-etcd-cli-'));
      dirs.push(dir);
      const endpoint = await endpointOf();
      const t0 = Date.now();
      const proc = spawn(process.execPath, ['--import', 'tsx', 'runtime/cli.ts', '--storage', 'etcd', '--etcd-servers', endpoint, '--port', '0', '--data-dir', dir], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number | null>((r) => proc.once('exit', r));
      // the process's own start (tsx, the generated modules) comes on top of the 3 s probe
      expect(Date.now() - t0).toBeLessThan(15_000);
      expect(code).toBe(1);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).toContain(endpoint);
      expect(stderr).toMatch(/^error: /);
      expect(stderr).toMatch(cause);
    }, 30_000);
  });

  it('an object over etcd\'s request limit is TooLarge and writes nothing', async () => {
    const s = new EtcdStorage({ endpoints: [small.endpoint], prefix: '/big', compactionIntervalSeconds: 0 });
    try {
      const before = await s.currentRevision();
      const huge = 'x'.repeat(100 * 1024);
      expect((await rejection(s.create('/core/configmaps/a/x', huge))).code).toBe('TooLarge');
      const rev = await s.create('/core/configmaps/a/x', 'small');
      expect((await rejection(s.update('/core/configmaps/a/x', huge, rev))).message).toBe('etcdserver: request is too large');
      expect((await s.get('/core/configmaps/a/x')).kv?.value).toBe('small');
      expect(await s.currentRevision()).toBe(before + 1);
    } finally {
      await s.close();
    }
  });

  it('keys live under the prefix; two prefixes on one etcd do not see each other', async () => {
    const a = new EtcdStorage({ endpoints: [member.endpoint], prefix: '/tenant-a', compactionIntervalSeconds: 0 });
    const b = new EtcdStorage({ endpoints: [member.endpoint], prefix: '/tenant-b', compactionIntervalSeconds: 0 });
    try {
      const wb = await collect(b, '/core/', 0);
      await a.create('/core/configmaps/ns/x', 'a');
      await b.create('/core/configmaps/ns/x', 'b');
      expect((await a.list('/core/')).items.map((i) => i.value)).toEqual(['a']);
      expect((await b.list('/core/')).items.map((i) => i.value)).toEqual(['b']);
      const events = await wb.waitFor(1);
      expect(events.map((e) => [e.key, e.value])).toEqual([['/core/configmaps/ns/x', 'b']]);
      const raw = await fetch(`${member.endpoint}/v3/kv/range`, {
        method: 'POST',
        body: JSON.stringify({ key: Buffer.from('/tenant-a/core/configmaps/ns/x').toString('base64') }),
      });
      expect(((await raw.json()) as { count?: string }).count).toBe('1');
      wb.handle?.cancel();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('progress notifications advance a quiet watch past other keys\' writes', async () => {
    const s = new EtcdStorage({ endpoints: [member.endpoint], prefix: '/progress', compactionIntervalSeconds: 0 });
    try {
      const from = await s.currentRevision();
      const handle = (await s.watch('/quiet/', from, () => undefined)) as EtcdWatchHandle;
      const other = await s.create('/busy/x', 'v');
      const deadline = Date.now() + 5000;
      while (handle.progressRevision < other && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(handle.progressRevision).toBeGreaterThanOrEqual(other);
      handle.cancel();
    } finally {
      await s.close();
    }
  });

  it('replicas compact once per interval between them, to the revision seen one interval earlier', async () => {
    const a = new EtcdStorage({ endpoints: [member.endpoint], prefix: '/compact', compactionIntervalSeconds: 3600 });
    const b = new EtcdStorage({ endpoints: [member.endpoint], prefix: '/compact', compactionIntervalSeconds: 3600 });
    try {
      const ca = a.periodicCompactor();
      const cb = b.periodicCompactor();
      if (!ca || !cb) throw new Error('periodic compaction is off');
      let rev = await a.create('/core/x/k', '0');
      // round 1: whoever claims first records the current revision and compacts nothing yet
      const first = await Promise.all([ca.tick(), cb.tick()]);
      expect(first).toEqual([0, 0]);
      for (let i = 1; i <= 5; i++) rev = await a.update('/core/x/k', String(i), rev);
      // round 2: exactly one replica compacts, to a revision from round 1
      const second = await Promise.all([ca.tick(), cb.tick()]);
      const compactedTo = Math.max(...second);
      expect(second.filter((r) => r > 0)).toHaveLength(1);
      expect(compactedTo).toBeLessThan(rev);
      expect(await b.compactedRevision()).toBe(compactedTo);
      expect((await rejection(a.get('/core/x/k', { revision: compactedTo - 1 }))).code).toBe('Compacted');
      expect((await a.get('/core/x/k', { revision: compactedTo })).revision).toBe(compactedTo);
      expect((await rejection(b.watch('/core/', compactedTo - 1, () => undefined))).code).toBe('Compacted');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('a compaction made behind the backend\'s back ends a watch Compacted; the stream serves the next watch', async () => {
    const s = new EtcdStorage({ endpoints: [member.endpoint], prefix: '/behind', compactionIntervalSeconds: 0 });
    try {
      const from = await s.currentRevision();
      let rev = await s.create('/core/configmaps/a/x', '0');
      for (let i = 1; i <= 5; i++) rev = await s.update('/core/configmaps/a/x', String(i), rev);
      // etcd's own compaction (as --auto-compaction would): compact_rev_key does not know of it
      await s.rawKv().compact({ revision: rev - 1 });
      const old = await collect(s, '/core/', from);
      const deadline = Date.now() + 5000;
      while (!old.error && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(old.error?.code).toBe('Compacted');
      expect(old.error?.compactedRevision).toBe(rev - 1);
      expect(old.events).toEqual([]);
      const fresh = await collect(s, '/core/', rev);
      const next = await s.update('/core/configmaps/a/x', 'next', rev);
      expect((await fresh.waitFor(1)).map((e) => e.modRevision)).toEqual([next]);
      expect(s.stats().watchers).toBe(1);
      fresh.handle?.cancel();
      expect(s.stats().watchers).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('an etcd that goes away: calls fail Unavailable within the deadline, watches end Unavailable', async () => {
    const lone = await startEtcdMember();
    const s = new EtcdStorage({ endpoints: [lone.endpoint], compactionIntervalSeconds: 0, requestTimeoutMs: 2000 });
    try {
      await s.create('/core/configmaps/a/x', 'v');
      const w = await collect(s, '/core/', 0);
      await w.waitFor(1);
      await lone.stop();
      const t0 = Date.now();
      const err = await rejection(s.get('/core/configmaps/a/x'));
      expect(err.code).toBe('Unavailable');
      expect(err.message).toMatch(/^etcd unavailable: /);
      // the 2 s deadline plus slack: the whole suite runs beside this file on two cores
      expect(Date.now() - t0).toBeLessThan(4500);
      const deadline = Date.now() + 5000;
      while (!w.error && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(w.error?.code).toBe('Unavailable');
      expect(await s.checkHealth()).toBe(false);
    } finally {
      await s.close();
      await lone.stop();
    }
  });

  describe('client TLS (--etcd-cafile, --etcd-certfile, --etcd-keyfile) against a member that requires client certificates', () => {
    let secure: EtcdMember;
    let files: EtcdTlsFiles;
    let other: EtcdTlsFiles;
    beforeAll(async () => {
      const dir = mkdtempSync(join(tmpdir(), 'clusterspec-etcd-tls-'));
      const otherDir = mkdtempSync(join(tmpdir(), 'clusterspec-etcd-tls-other-'));
      dirs.push(dir, otherDir);
      [files, other] = await Promise.all([makeEtcdTlsFiles(dir), makeEtcdTlsFiles(otherDir)]);
      secure = await startEtcdMember({ tls: files });
    });
    afterAll(async () => {
      await secure?.stop();
    });

    it('works with the CA and a client certificate: writes, reads, watches', async () => {
      const { storage } = await connectEtcdStorage({
        servers: secure.endpoint,
        caFile: files.caFile,
        certFile: files.clientCertFile,
        keyFile: files.clientKeyFile,
        compactionIntervalSeconds: 0,
      });
      try {
        expect(secure.endpoint).toMatch(/^https:/);
        const w = await collect(storage, '/core/', await storage.currentRevision());
        const rev = await storage.create('/core/configmaps/a/x', 'v');
        expect((await storage.get('/core/configmaps/a/x')).kv?.modRevision).toBe(rev);
        expect((await w.waitFor(1)).map((e) => e.modRevision)).toEqual([rev]);
        expect(await storage.checkHealth()).toBe(true);
      } finally {
        await storage.close();
      }
    });

    it.each([
      ['another CA', () => ({ caFile: other.caFile, certFile: files.clientCertFile, keyFile: files.clientKeyFile })],
      ['no client certificate', () => ({ caFile: files.caFile })],
      ['a client certificate from another CA', () => ({ caFile: files.caFile, certFile: other.clientCertFile, keyFile: other.clientKeyFile })],
    ])('%s: one line naming the endpoint, within a few seconds', async (_name, tls) => {
      const t0 = Date.now();
      const err = await rejection(connectEtcdStorage({ servers: secure.endpoint, ...tls() }));
      expect(Date.now() - t0).toBeLessThan(5000);
      expect(err.code).toBe('Unavailable');
      expect(err.message).toMatch(new RegExp(`^cannot reach etcd at ${secure.endpoint}: \\S`));
      expect(err.message).not.toContain('\n');
    });
  });

  it('TLS files that exist are read, and an http:// endpoint with them is refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'clusterspec-etcd-tls-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'ca.crt'), 'not a certificate');
    const err = await rejection(connectEtcdStorage({ servers: member.endpoint, caFile: join(dir, 'ca.crt') }));
    expect(err.message).toBe(`etcd endpoint ${member.endpoint}: --etcd-cafile/--etcd-certfile need https:// endpoints`);
  });
});
