// Graceful shutdown of a REAL server process (upstream's graceful termination): on SIGTERM open
// watches end cleanly, an in-flight request finishes with its normal answer, new connections are
// refused, the process exits 0, and an acknowledged write is there after a restart; /readyz fails
// during --shutdown-delay-duration; a second signal exits at once; --shutdown-send-retry-after answers
// 429 while draining. Also: the server started as npm start does runs with a raised V8 stack.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, TestServer } from './harness.ts';

const started: TestServer[] = [];
afterAll(async () => {
  for (const s of started) await s.stop();
});

async function start(storage: 'memory' | 'sqlite', dir?: string, args: string[] = []): Promise<TestServer> {
  const s = await TestServer.start(storage, dir, args, true);
  started.push(s);
  return s;
}

function exited(proc: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve({ code: proc.exitCode, signal: proc.signalCode });
  return new Promise((r) => proc.once('exit', (code, signal) => r({ code, signal })));
}

/** Resolves to the connection error code once connecting to the port fails (bounded), or 'connected'. */
async function refusedWithin(port: number, ms: number): Promise<string> {
  const deadline = Date.now() + ms;
  for (;;) {
    const outcome = await new Promise<string>((r) => {
      const sock = connect(port, '127.0.0.1');
      sock.once('connect', () => {
        sock.destroy();
        r('connected');
      });
      sock.once('error', (e: NodeJS.ErrnoException) => r(e.code ?? 'error'));
    });
    if (outcome !== 'connected' || Date.now() > deadline) return outcome;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A create whose body arrives in two halves: the server is handling it (headers and half the body
 * read) until `finish()` sends the rest. Resolves with the answer.
 */
function slowCreate(s: TestServer, name: string): { finish: () => void; answer: Promise<{ status: number; json: { kind?: string; metadata?: { name?: string } }; connection?: string }> } {
  const body = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
  const half = Math.floor(body.length / 2);
  let finish = (): void => undefined;
  const answer = new Promise<{ status: number; json: { kind?: string; metadata?: { name?: string } }; connection?: string }>((resolve, reject) => {
    const req = httpsRequest(
      new URL('/api/v1/namespaces', s.url),
      { method: 'POST', ca: s.ca, agent: false, headers: { Authorization: `Bearer ${s.token}`, 'Content-Type': 'application/json', 'Content-Length': String(body.length) } },
      (r) => {
        let text = '';
        r.on('data', (c: Buffer) => (text += c.toString()));
        r.on('end', () => resolve({ status: r.statusCode ?? 0, json: JSON.parse(text), connection: r.headers.connection }));
        r.on('error', reject);
      },
    );
    req.on('error', reject);
    req.write(body.subarray(0, half));
    finish = () => req.end(body.subarray(half));
  });
  return { finish, answer };
}

describe('graceful shutdown on SIGTERM', () => {
  it('ends the watch cleanly, finishes the in-flight request, refuses new connections, exits 0, keeps acknowledged writes (SQLite)', async () => {
    const s = await start('sqlite');
    const dir = s.dataDir;
    const before = await s.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'before-sigterm' } });
    expect(before.status).toBe(201);
    const watch = await s.startWatch(`/api/v1/namespaces?watch=1&resourceVersion=${before.json.metadata.resourceVersion}`, 30_000);
    const slow = slowCreate(s, 'during-drain');
    await new Promise((r) => setTimeout(r, 300)); // the server is reading the slow body

    s.proc.kill('SIGTERM');
    expect(await refusedWithin(s.port, 10_000)).toBe('ECONNREFUSED');
    const w = await watch.result;
    expect({ status: w.status, ended: w.ended }).toEqual({ status: 200, ended: true });

    slow.finish();
    const answer = await slow.answer;
    expect({ status: answer.status, kind: answer.json.kind, name: answer.json.metadata?.name, connection: answer.connection }).toEqual({ status: 201, kind: 'Namespace', name: 'during-drain', connection: 'close' });
    expect(await exited(s.proc)).toEqual({ code: 0, signal: null });

    await s.stop(false);
    const again = await start('sqlite', dir);
    for (const name of ['before-sigterm', 'during-drain']) expect((await again.get(`/api/v1/namespaces/${name}`)).status).toBe(200);
  }, 90_000);

  it('fails /readyz during --shutdown-delay-duration while serving the rest, and exits at once (1) on a second signal', async () => {
    const s = await start('memory', undefined, ['--shutdown-delay-duration=20s']);
    expect((await s.get('/readyz', { token: null })).status).toBe(200);
    s.proc.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    const readyz = await s.get('/readyz?verbose', { token: null });
    const probes = {
      readyz: readyz.status,
      shutdownLine: readyz.text.split('\n').find((l) => l.includes('shutdown')),
      readyzShutdown: (await s.get('/readyz/shutdown', { token: null })).status,
      livez: (await s.get('/livez', { token: null })).status,
      healthz: (await s.get('/healthz', { token: null })).status,
      list: (await s.get('/api/v1/namespaces')).status,
    };
    expect(probes).toEqual({ readyz: 500, shutdownLine: '[-]shutdown failed: reason withheld', readyzShutdown: 500, livez: 200, healthz: 200, list: 200 });
    await new Promise((r) => setTimeout(r, 600)); // past SAME_SIGNAL_MS: a second request to stop
    const t0 = Date.now();
    s.proc.kill('SIGTERM');
    expect(await exited(s.proc)).toEqual({ code: 1, signal: null });
    expect(Date.now() - t0).toBeLessThan(5_000);
  }, 90_000);

  it('--shutdown-send-retry-after: keeps listening while draining and answers new requests 429 with Retry-After', async () => {
    const s = await start('memory', undefined, ['--shutdown-send-retry-after']);
    const slow = slowCreate(s, 'slow');
    await new Promise((r) => setTimeout(r, 300));
    s.proc.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    const rejected = await s.get('/api/v1/namespaces', { headers: { Connection: 'close' } });
    expect({ status: rejected.status, retryAfter: rejected.headers['retry-after'], connection: rejected.headers.connection, text: rejected.text }).toEqual({
      status: 429,
      retryAfter: '5',
      connection: 'close',
      text: 'The apiserver is shutting down, please try again later.\n',
    });
    expect((await s.get('/livez', { token: null, headers: { Connection: 'close' } })).status).toBe(200);
    slow.finish();
    expect((await slow.answer).status).toBe(201);
    expect(await exited(s.proc)).toEqual({ code: 0, signal: null });
  }, 90_000);
});

describe('the server process started as npm start starts it', () => {
  it('re-executes once with --stack-size, relays SIGTERM, and exits with the server exit code', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'clusterspec-stack-'));
    const args = ['--import', 'tsx', '--import', './runtime/stack-reexec.ts', 'runtime/cli.ts', '--port', '0', '--address', '127.0.0.1', '--storage', 'memory', '--insecure-http', '--data-dir', dir];
    const proc = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    try {
      await new Promise<void>((res, rej) => {
        const t = setTimeout(() => rej(new Error(`no start: ${out} ${err}`)), 60_000);
        proc.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\ntry: ')) {
            clearTimeout(t);
            res();
          }
        });
      });
      const children = readFileSync(`/proc/${proc.pid}/task/${proc.pid}/children`, 'utf8').trim().split(/\s+/);
      const serverArgs = readFileSync(`/proc/${children[0]}/cmdline`, 'utf8').split('\0');
      proc.kill('SIGTERM');
      const exit = await exited(proc);
      expect({
        children: children.length,
        // the server process has the stack flag and not the preload of the re-exec gate
        stackFlags: serverArgs.filter((a) => a.startsWith('--stack-size=') || a.includes('stack-reexec')).map((a) => a.replace(/\d+$/, 'N')),
        // startup output is the server's own, once
        listening: out.match(/listening on/g)?.length,
        exit,
        stderr: err,
      }).toEqual({ children: 1, stackFlags: ['--stack-size=N'], listening: 1, exit: { code: 0, signal: null }, stderr: '' });
    } finally {
      if (proc.exitCode === null) proc.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
