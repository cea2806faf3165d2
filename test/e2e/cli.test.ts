// The CLI's flags on a real process: --token-file, --tls-cert-file/--tls-private-key-file,
// --insecure-http, --feature-gates, --help, and a second server on a data directory in use.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generate } from 'selfsigned';
import { ROOT } from './harness.ts';

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'clusterspec-cli-'));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function startWith(args: string[]): Promise<{ url: string; stop: () => void; stdout: string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'runtime/cli.ts', '--port', '0', '--address', '127.0.0.1', '--storage', 'memory', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const url = await new Promise<string>((res, rej) => {
    const t = setTimeout(() => rej(new Error(`no start: ${out} ${err}`)), 60_000);
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (https?:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m && /\n(try|authentication):/.test(out)) {
        clearTimeout(t);
        res(m[1]);
      }
    });
    proc.once('exit', (c) => rej(new Error(`exited ${c}: ${out} ${err}`)));
  });
  return { url, stdout: out, stop: () => proc.kill('SIGTERM') };
}

function get(url: string, path: string, token: string | undefined, ca?: string): Promise<number> {
  return new Promise((res, rej) => {
    const u = new URL(path, url);
    const headers = token ? { Authorization: `Bearer ${token}` } : {};
    const cb = (r: import('node:http').IncomingMessage): void => {
      r.resume();
      r.on('end', () => res(r.statusCode ?? 0));
    };
    const req = u.protocol === 'https:' ? httpsRequest(u, { headers, ca }, cb) : httpRequest(u, { headers }, cb);
    req.on('error', rej);
    req.end();
  });
}

describe('CLI flags', () => {
  it('--token-file with --tls-cert-file/--tls-private-key-file', async () => {
    const d = tmp();
    writeFileSync(join(d, 'tokens.csv'), 'secret-1,ann,u-1,"team-a,team-b"\n');
    const pems = await generate([{ name: 'commonName', value: 'test' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      extensions: [
        { name: 'basicConstraints', cA: true },
        { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
      ],
    });
    writeFileSync(join(d, 'tls.crt'), pems.cert);
    writeFileSync(join(d, 'tls.key'), pems.private);
    const s = await startWith(['--data-dir', join(d, 'data'), '--token-file', join(d, 'tokens.csv'), '--tls-cert-file', join(d, 'tls.crt'), '--tls-private-key-file', join(d, 'tls.key')]);
    try {
      expect(s.url.startsWith('https://')).toBe(true);
      expect(s.stdout).toContain('1 token(s)');
      expect(existsSync(join(d, 'data', 'admin.token'))).toBe(false);
      expect(await get(s.url, '/api/v1/namespaces', 'secret-1', pems.cert)).toBe(200);
      expect(await get(s.url, '/api/v1/namespaces', 'wrong', pems.cert)).toBe(401);
      expect(await get(s.url, '/healthz', undefined, pems.cert)).toBe(200);
    } finally {
      s.stop();
    }
  });

  it('--insecure-http serves plain HTTP', async () => {
    const d = tmp();
    const s = await startWith(['--data-dir', d, '--insecure-http', '--feature-gates', 'WatchList=false']);
    try {
      expect(s.url.startsWith('http://')).toBe(true);
      expect(await get(s.url, '/readyz', undefined)).toBe(200);
      expect(await get(s.url, '/api', undefined)).toBe(401);
    } finally {
      s.stop();
    }
  });

  it('a second server on the same --data-dir is refused with one line, and the first keeps serving', async () => {
    const d = tmp();
    const first = await startWith(['--data-dir', d, '--insecure-http', '--storage', 'sqlite']);
    try {
      const second = spawnSync(process.execPath, ['--import', 'tsx', 'runtime/cli.ts', '--port', '0', '--address', '127.0.0.1', '--insecure-http', '--data-dir', d], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
      expect(second.status).toBe(1);
      expect(second.stderr).toBe(`error: database ${join(d, 'clusterspec.db')} is in use by another process: database is locked\n`);
      expect(await get(first.url, '/readyz', undefined)).toBe(200);
    } finally {
      first.stop();
    }
  });

  it('rejects unknown flags and unknown feature gates, and prints help', () => {
    const run = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'runtime/cli.ts', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    const help = run(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--storage sqlite|memory');
    const bad = run(['--nope']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('unknown flag --nope');
    const gate = run(['--storage', 'memory', '--data-dir', tmp(), '--feature-gates', 'NoSuchGate=true']);
    expect(gate.status).toBe(2);
    expect(gate.stderr).toContain('unknown feature gate(s): NoSuchGate');
  });
});
