// Starts a REAL server process (runtime/cli.ts) on 127.0.0.1 with a free port and talks to it over
// HTTPS (the default: a self-signed certificate in the data directory).

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest, Agent } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { serverStackArgs } from '../../runtime/stack-size.ts';

export const ROOT = resolve(import.meta.dirname, '..', '..');

export interface Response {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

export interface RequestOptions {
  body?: unknown;
  /** Raw body text (sent as is). */
  raw?: string | Buffer;
  headers?: Record<string, string>;
  /** `null`: no Authorization header. Default: the admin token. */
  token?: string | null;
}

export class TestServer {
  private agent: Agent;
  private constructor(
    readonly proc: ChildProcess,
    readonly url: string,
    readonly dataDir: string,
    readonly token: string,
    readonly ca: Buffer,
    readonly stdout: string,
    private readonly ownsDir: boolean,
  ) {
    this.agent = new Agent({ ca, keepAlive: true });
  }

  get kubeconfig(): string {
    return join(this.dataDir, 'kubeconfig');
  }

  /** The port the server listens on (pass `['--port', String(port)]` to restart on the same one). */
  get port(): number {
    return Number(new URL(this.url).port);
  }

  /** `ownsDir`: remove the data directory on stop (default: only when this call created it). */
  static async start(storage: 'memory' | 'sqlite', dataDir?: string, extraArgs: string[] = [], ownsDir = dataDir === undefined): Promise<TestServer> {
    const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'clusterspec-e2e-'));
    // The node flags runtime/stack-reexec.ts would re-execute with, given here: the server is this very process (kill -9 kills it).
    const proc = spawn(process.execPath, [...serverStackArgs(), '--import', 'tsx', 'runtime/cli.ts', '--port', '0', '--address', '127.0.0.1', '--storage', storage, '--data-dir', dir, ...extraArgs], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    proc.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    const url = await new Promise<string>((res, rej) => {
      const timer = setTimeout(() => rej(new Error(`server did not start in 60 s; stdout: ${out}; stderr: ${err}`)), 60_000);
      proc.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (https?:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m && out.includes('kubectl --kubeconfig')) {
          clearTimeout(timer);
          res(m[1]);
        }
      });
      proc.once('exit', (code) => {
        clearTimeout(timer);
        rej(new Error(`server exited with ${code}; stdout: ${out}; stderr: ${err}`));
      });
    });
    const token = readFileSync(join(dir, 'admin.token'), 'utf8').trim();
    const ca = readFileSync(join(dir, 'apiserver.crt'));
    return new TestServer(proc, url, dir, token, ca, out, ownsDir);
  }

  async stop(removeData = true): Promise<void> {
    this.agent.destroy();
    if (this.proc.exitCode === null && this.proc.signalCode === null) {
      const exited = new Promise<void>((r) => this.proc.once('exit', () => r()));
      this.proc.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (this.proc.exitCode === null) this.proc.kill('SIGKILL');
    }
    if (removeData && this.ownsDir) rmSync(this.dataDir, { recursive: true, force: true });
  }

  /** `kill -9`: no shutdown, no flush; resolves once the process has exited. Keeps the data directory. */
  async kill(): Promise<void> {
    this.agent.destroy();
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    const exited = new Promise<void>((r) => this.proc.once('exit', () => r()));
    this.proc.kill('SIGKILL');
    await exited;
  }

  request(method: string, path: string, o: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    const token = o.token === undefined ? this.token : o.token;
    if (token !== null) headers.Authorization = `Bearer ${token}`;
    let body: Buffer | undefined;
    if (o.raw !== undefined) body = Buffer.isBuffer(o.raw) ? o.raw : Buffer.from(o.raw);
    else if (o.body !== undefined) {
      body = Buffer.from(JSON.stringify(o.body));
      headers['Content-Type'] ??= 'application/json';
    }
    if (body) headers['Content-Length'] = String(body.length);
    return new Promise((res, rej) => {
      const req = httpsRequest(new URL(path, this.url), { method, headers, agent: this.agent }, (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          res({ status: r.statusCode ?? 0, headers: r.headers, text, json });
        });
      });
      req.setTimeout(30_000, () => req.destroy(new Error(`timeout: ${method} ${path}`)));
      req.on('error', rej);
      req.end(body);
    });
  }

  get(path: string, o?: RequestOptions): Promise<Response> {
    return this.request('GET', path, o);
  }
  post(path: string, body: unknown, o: RequestOptions = {}): Promise<Response> {
    return this.request('POST', path, { ...o, body });
  }
  put(path: string, body: unknown, o: RequestOptions = {}): Promise<Response> {
    return this.request('PUT', path, { ...o, body });
  }
  delete(path: string, o?: RequestOptions): Promise<Response> {
    return this.request('DELETE', path, o);
  }

  /** Opens a watch and collects events; `until` ends it early. Bounded by `ms`. */
  watch(path: string, o: { ms: number; until?: (events: WatchEventLine[]) => boolean; headers?: Record<string, string> }): Promise<{ status: number; events: WatchEventLine[]; headers: IncomingHttpHeaders; ended: boolean }> {
    return new Promise((res, rej) => {
      const events: WatchEventLine[] = [];
      let buf = '';
      let done = false;
      const req = httpsRequest(new URL(path, this.url), { method: 'GET', headers: { Authorization: `Bearer ${this.token}`, ...(o.headers ?? {}) }, agent: false, ca: this.ca }, (r) => {
        const finish = (ended: boolean): void => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          req.destroy();
          res({ status: r.statusCode ?? 0, events, headers: r.headers, ended });
        };
        const timer = setTimeout(() => finish(false), o.ms);
        r.on('data', (c: Buffer) => {
          buf += c.toString('utf8');
          let i: number;
          while ((i = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, i);
            buf = buf.slice(i + 1);
            if (line.trim()) events.push(JSON.parse(line) as WatchEventLine);
          }
          if (o.until?.(events)) finish(false);
        });
        r.on('end', () => finish(true));
        r.on('error', () => finish(false));
      });
      req.on('error', (e) => {
        if (!done) rej(e);
      });
      req.end();
    });
  }

  /** Starts a watch in the background; resolves (after a short settle) to a handle whose `result` ends it. */
  async startWatch(path: string, ms: number, until?: (events: WatchEventLine[]) => boolean): Promise<{ result: Promise<{ status: number; events: WatchEventLine[]; ended: boolean }> }> {
    const result = this.watch(path, { ms, until });
    await new Promise((r) => setTimeout(r, 300));
    return { result };
  }
}

export interface WatchEventLine {
  type: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  object: any;
}

export async function eventually<T>(fn: () => Promise<T | undefined | false>, ms = 10_000, step = 100): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, step));
  }
}
