// Throwaway etcd members for tests and benchmarks: own data directory, loopback ports picked free,
// stopped (and the directory removed) afterwards. Not a test file itself.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';

export interface EtcdMember {
  /** The client URL, http://127.0.0.1:PORT. */
  readonly endpoint: string;
  readonly dataDir: string;
  readonly process: ChildProcess;
  /** SIGTERM, wait for the exit, remove the data directory. Idempotent. */
  stop(): Promise<void>;
  /** Ends the process (SIGTERM by default) and keeps the data directory: etcd gone, as for a crash or maintenance. */
  halt(signal?: NodeJS.Signals): Promise<void>;
  /** Starts the member again on the same ports and data (after halt(), or halting it first); resolves once healthy. */
  restart(): Promise<void>;
}

export interface EtcdMemberOptions {
  /** etcd's --max-request-bytes (default etcd's 1.5 MiB). */
  readonly maxRequestBytes?: number;
  /** etcd's periodic watch progress notification (default etcd's 10 minutes). */
  readonly progressNotifyIntervalMs?: number;
  /** Serve clients over TLS with this certificate, and require client certificates signed by the CA. */
  readonly tls?: EtcdTlsFiles;
  /** Milliseconds to wait for /health (default 10 s). */
  readonly startTimeoutMs?: number;
}

/** PEM files: a CA, etcd's serving certificate for 127.0.0.1, and a client certificate. */
export interface EtcdTlsFiles {
  readonly caFile: string;
  readonly serverCertFile: string;
  readonly serverKeyFile: string;
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
}

/** Writes a fresh CA, a serving certificate for 127.0.0.1 and a client certificate into `dir`. */
export async function makeEtcdTlsFiles(dir: string): Promise<EtcdTlsFiles> {
  const base = { keyType: 'ec', curve: 'P-256', algorithm: 'sha256' } as const;
  const ca = await generate([{ name: 'commonName', value: 'etcd-test-ca' }], {
    ...base,
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true },
    ],
  });
  const signedBy = { key: ca.private, cert: ca.cert };
  const server = await generate([{ name: 'commonName', value: 'etcd' }], {
    ...base,
    ca: signedBy,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true, clientAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  });
  const client = await generate([{ name: 'commonName', value: 'clusterspec' }], {
    ...base,
    ca: signedBy,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', clientAuth: true },
    ],
  });
  const files: EtcdTlsFiles = {
    caFile: join(dir, 'ca.crt'),
    serverCertFile: join(dir, 'server.crt'),
    serverKeyFile: join(dir, 'server.key'),
    clientCertFile: join(dir, 'client.crt'),
    clientKeyFile: join(dir, 'client.key'),
  };
  writeFileSync(files.caFile, ca.cert);
  writeFileSync(files.serverCertFile, server.cert);
  writeFileSync(files.serverKeyFile, server.private, { mode: 0o600 });
  writeFileSync(files.clientCertFile, client.cert);
  writeFileSync(files.clientKeyFile, client.private, { mode: 0o600 });
  return files;
}

/** etcd's /health: true when it answers {"health":"true"}. */
async function healthy(endpoint: string, tls: EtcdTlsFiles | undefined): Promise<boolean> {
  if (!tls) {
    const res = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(1000) });
    return ((await res.json()) as { health?: string }).health === 'true';
  }
  return new Promise((resolveHealth) => {
    const req = httpsGet(
      `${endpoint}/health`,
      { ca: readFileSync(tls.caFile), cert: readFileSync(tls.clientCertFile), key: readFileSync(tls.clientKeyFile), timeout: 1000 },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolveHealth(body.includes('"health":"true"')));
      },
    );
    req.on('error', () => resolveHealth(false));
    req.on('timeout', () => req.destroy());
  });
}

/** Where etcd is, or undefined when the binary is absent. */
export function etcdBinary(): string | undefined {
  const r = spawnSync('etcd', ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? 'etcd' : undefined;
}

/**
 * The skip decision for tests that need etcd: a reason to skip (printed by the caller), or undefined
 * to run. On CI (process.env.CI) an absent etcd is a failure, never a skip.
 */
export function etcdSkipReason(): string | undefined {
  if (etcdBinary()) return undefined;
  if (process.env.CI) throw new Error('etcd is not installed, and tests against etcd must run on CI (.ci/run installs etcd-server)');
  return 'etcd is not installed (apt-get install etcd-server): the etcd tests are SKIPPED';
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolvePort(port));
    });
  });
}

/** The environment without ETCD_* variables: etcd reads every one of them as a flag. */
function etcdEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('ETCD_')) env[k] = v;
  return env;
}

export async function startEtcdMember(options: EtcdMemberOptions = {}): Promise<EtcdMember> {
  const dataDir = mkdtempSync(join(tmpdir(), 'clusterspec-etcd-'));
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const endpoint = `${options.tls ? 'https' : 'http'}://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const args = [
    '--name', 'test',
    '--data-dir', dataDir,
    '--listen-client-urls', endpoint,
    '--advertise-client-urls', endpoint,
    '--listen-peer-urls', peer,
    '--initial-advertise-peer-urls', peer,
    '--initial-cluster', `test=${peer}`,
    '--initial-cluster-state', 'new',
    '--log-level', 'error',
  ];
  if (options.tls) {
    const t = options.tls;
    args.push('--cert-file', t.serverCertFile, '--key-file', t.serverKeyFile, '--trusted-ca-file', t.caFile, '--client-cert-auth');
  }
  if (options.maxRequestBytes !== undefined) args.push('--max-request-bytes', String(options.maxRequestBytes));
  if (options.progressNotifyIntervalMs !== undefined) args.push('--experimental-watch-progress-notify-interval', `${options.progressNotifyIntervalMs}ms`);

  let child: ChildProcess;
  let exited = false;
  let exit: Promise<void>;
  let stderr = '';
  let removed = false;
  // a test process that dies (an uncaught exception, process.exit) takes its member with it
  const killOnExit = (): void => {
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  };
  process.once('exit', killOnExit);
  const spawnMember = (): void => {
    exited = false;
    stderr = '';
    child = spawn('etcd', args, { env: etcdEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr?.on('data', (d: Buffer) => {
      if (stderr.length < 8192) stderr += d.toString();
    });
    const c = child;
    exit = new Promise<void>((r) =>
      c.once('exit', () => {
        exited = true;
        r();
      }),
    );
  };
  /** Ends the process (SIGTERM, or SIGKILL after 5 s, or at once with `signal`), keeping the data directory. */
  const halt = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<void> => {
    if (exited) return;
    child.kill(signal);
    const killTimer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exit;
    clearTimeout(killTimer);
  };
  const stop = async (): Promise<void> => {
    if (removed) return;
    removed = true;
    await halt();
    process.removeListener('exit', killOnExit);
    rmSync(dataDir, { recursive: true, force: true });
  };
  const waitHealthy = async (): Promise<void> => {
    const deadline = Date.now() + (options.startTimeoutMs ?? 10_000);
    for (;;) {
      if (exited) {
        const why = stderr.trim().split('\n').slice(-3).join(' | ');
        await stop();
        throw new Error(`etcd exited at start: ${why}`);
      }
      try {
        if (await healthy(endpoint, options.tls)) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        const why = stderr.trim().slice(-500);
        await stop();
        throw new Error(`etcd did not become healthy within ${options.startTimeoutMs ?? 10_000} ms: ${why}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  spawnMember();
  await waitHealthy();
  return {
    endpoint,
    dataDir,
    get process() {
      return child;
    },
    stop,
    async halt(signal?: NodeJS.Signals) {
      await halt(signal);
    },
    async restart() {
      if (removed) throw new Error('etcd member: restart after stop()');
      await halt();
      spawnMember();
      await waitHealthy();
    },
  };
}
