// `npm start`: the clusterspec API server.
//
//   tsx runtime/cli.ts [--port 8080] [--address 127.0.0.1] [--data-dir ./data] [--storage sqlite|memory|etcd [--etcd-servers URL,...]]
//                      [--token-file tokens.csv] [--tls-cert-file f --tls-private-key-file f]
//                      [--feature-gates Name=true,...] [--webhook-service-resolver ns/name[:port]=https://host:port,...]
//
// Without --token-file, the first start creates an admin token (<data-dir>/admin.token) and a
// kubeconfig (<data-dir>/kubeconfig); a restart keeps data and token.

// First: started without a raised V8 stack, the process re-executes itself with one and goes no further.
import './stack-reexec.ts';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseServiceResolverOverrides } from './admission/index.ts';
import { TokenAuthenticator } from './http/auth.ts';
import { buildApiServer, listen, loadGenerated } from './http/bootstrap.ts';
import { shutDownGracefully } from './http/graceful-shutdown.ts';
import { parseGoBool } from './http/query-bool.ts';
import { ensureServingCert } from './http/serving-cert.ts';
import { parseDurationSeconds } from './go-duration.ts';
import { checkLeaderElectionTiming, DEFAULT_LEADER_ELECTION_TIMING } from './controller/leader-election-etcd.ts';
import { leaderElectorFor } from './controller/leader-election-for-storage.ts';
import { openStorage, StorageError, type Storage } from './storage/index.ts';
import { parseMaxRequestBytes } from './storage/request-size.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const HELP = `clusterspec API server

Usage: npm start -- [flags]      (or: tsx runtime/cli.ts [flags])

Flags:
  --port N                      port to listen on (default 8080; 0 picks a free port)
  --address ADDR                address to bind (default 127.0.0.1)
  --data-dir DIR                data directory: database, admin token, kubeconfig (default ./data)
  --storage sqlite|memory|etcd  storage backend (default sqlite; memory keeps nothing; etcd: see below)
  --etcd-servers URL[,URL...]   etcd client URLs (http://host:port or https://host:port), for --storage etcd
  --etcd-prefix PREFIX          every key lives under this prefix (default /registry)
  --etcd-cafile FILE            CA (PEM) that signed etcd's serving certificate (https endpoints)
  --etcd-certfile FILE          client certificate (PEM) for etcd ...
  --etcd-keyfile FILE           ... and its private key (PEM)
  --etcd-compaction-interval D  compact etcd's history every D, keeping one interval (default 5m; 0 disables)
  --max-request-bytes N         sqlite and memory: refuse a write whose stored object (its key and JSON
                                text) is over N bytes, 413 as over etcd's own flag of this name, whose
                                default this is (1572864, 1.5 MiB; 0: no bound); with --storage etcd,
                                set it on etcd
  --leader-elect-lease-duration D, --leader-elect-renew-deadline D, --leader-elect-retry-period D
                                with --storage etcd, the replicas sharing it elect one to run each
                                controller that must run once (namespace clean-up, StorageVersionMigration,
                                garbage collection, event expiry) through an etcd lease
                                (defaults 15s, 10s, 2s, as upstream; retry < renew deadline < lease)
  --token-file FILE             static bearer tokens, CSV: token,user,uid[,"group1,group2"]
                                (without it, an admin token is created in the data directory)
  --tls-cert-file FILE          serve HTTPS with this certificate (PEM) ...
  --tls-private-key-file FILE   ... and this private key (PEM)
                                (without them: a self-signed certificate in the data directory)
  --insecure-http               serve plain HTTP (kubectl then sends no token: for tests and proxies)
  --feature-gates A=true,B=false  override feature gates (defaults from out/validators/feature-gates.ts)
  --webhook-service-resolver ns/name[:port]=https://host:port,...
                                where admission webhooks given as a service reference are reached
                                (a server outside a cluster cannot resolve <name>.<ns>.svc); the
                                certificate is still verified for <name>.<ns>.svc
  --shutdown-delay-duration D   on SIGTERM/SIGINT, keep serving for D with /readyz failing before
                                shutting down (a Go duration: 10s, 1m; default 0s)
  --shutdown-watch-termination-grace-period D
                                end open watches over D rather than all at once (default 0s); every
                                watch ends cleanly, in-flight requests finish (at most the 60 s request
                                timeout), then storage is closed; a second signal exits at once
  --shutdown-send-retry-after   while in-flight requests drain, keep listening and answer new
                                requests 429 with Retry-After (default: stop listening, 503)
  --event-ttl D                 how long an Event lives after its last write (default 1h; 0: forever)
  --help                        show this help

The server runs with a V8 stack of half the OS stack (ulimit -s), at most 3900 KB, for deeply nested
requests: started without --stack-size, node starts itself once more with it.
`;

interface Flags {
  port: number;
  address: string;
  dataDir: string;
  storage: 'sqlite' | 'memory' | 'etcd';
  etcdServers?: string;
  etcdPrefix?: string;
  etcdCaFile?: string;
  etcdCertFile?: string;
  etcdKeyFile?: string;
  /** Seconds; undefined: the backend's default (5 minutes). */
  etcdCompactionInterval?: number;
  /** sqlite and memory: etcd's bound on one write; undefined: etcd's default (1.5 MiB). */
  maxRequestBytes?: number;
  /** --leader-elect-*, milliseconds; unset ones keep the defaults. */
  leaderElection: { leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
  tokenFile?: string;
  tlsCert?: string;
  tlsKey?: string;
  featureGates: Record<string, boolean>;
  insecureHttp: boolean;
  webhookServiceOverrides: Map<string, string>;
  /** --shutdown-delay-duration, seconds. */
  shutdownDelay: number;
  /** --shutdown-watch-termination-grace-period, seconds. */
  shutdownWatchGrace: number;
  shutdownSendRetryAfter: boolean;
  /** --event-ttl, seconds; undefined: the default (1 h). */
  eventTtl?: number;
}

/** Signals this close together are one request to stop, delivered by several routes. */
const SAME_SIGNAL_MS = 500;

function fail(msg: string): never {
  process.stderr.write(`error: ${msg}\n\n${HELP}`);
  process.exit(2);
}

export function parseFlags(argv: readonly string[]): Flags | 'help' {
  const f: Flags = { port: 8080, address: '127.0.0.1', dataDir: './data', storage: 'sqlite', featureGates: {}, insecureHttp: false, webhookServiceOverrides: new Map(), shutdownDelay: 0, shutdownWatchGrace: 0, shutdownSendRetryAfter: false, leaderElection: {} };
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i];
    if (arg === '--help' || arg === '-h') return 'help';
    let value: string | undefined;
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0) {
      value = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    }
    const take = (): string => {
      if (value !== undefined) return value;
      const v = argv[++i];
      if (v === undefined) fail(`${arg} needs a value`);
      return v;
    };
    switch (arg) {
      case '--port': {
        const v = take();
        if (!/^\d+$/.test(v) || Number(v) > 65535) fail(`--port: not a port: ${v}`);
        f.port = Number(v);
        break;
      }
      case '--address':
        f.address = take();
        break;
      case '--data-dir':
        f.dataDir = take();
        break;
      case '--storage': {
        const v = take();
        if (v !== 'sqlite' && v !== 'memory' && v !== 'etcd') fail(`--storage: must be sqlite, memory or etcd, got ${v}`);
        f.storage = v;
        break;
      }
      case '--etcd-servers':
        f.etcdServers = take();
        break;
      case '--etcd-prefix': {
        const v = take();
        if (!v.startsWith('/') || (v.length > 1 && v.endsWith('/'))) fail(`--etcd-prefix: must start with / and not end with /, got ${v}`);
        f.etcdPrefix = v === '/' ? '' : v;
        break;
      }
      case '--etcd-cafile':
        f.etcdCaFile = take();
        break;
      case '--etcd-certfile':
        f.etcdCertFile = take();
        break;
      case '--etcd-keyfile':
        f.etcdKeyFile = take();
        break;
      case '--etcd-compaction-interval': {
        const v = take();
        const seconds = parseDurationSeconds(v);
        if (seconds === undefined) fail(`--etcd-compaction-interval: not a duration (like 5m, 300s, 0): ${v}`);
        f.etcdCompactionInterval = seconds;
        break;
      }
      case '--max-request-bytes': {
        const v = take();
        const n = parseMaxRequestBytes(v);
        if (n === undefined) fail(`--max-request-bytes: not a whole number of bytes: ${v}`);
        f.maxRequestBytes = n;
        break;
      }
      case '--leader-elect-lease-duration':
      case '--leader-elect-renew-deadline':
      case '--leader-elect-retry-period': {
        const v = take();
        const seconds = parseDurationSeconds(v);
        if (seconds === undefined || seconds <= 0) fail(`${arg}: not a positive duration (like 15s): ${v}`);
        const field = arg === '--leader-elect-lease-duration' ? 'leaseDurationMs' : arg === '--leader-elect-renew-deadline' ? 'renewDeadlineMs' : 'retryPeriodMs';
        f.leaderElection[field] = Math.round(seconds * 1000);
        break;
      }
      case '--token-file':
        f.tokenFile = take();
        break;
      case '--tls-cert-file':
        f.tlsCert = take();
        break;
      case '--tls-private-key-file':
        f.tlsKey = take();
        break;
      case '--insecure-http':
        f.insecureHttp = true;
        break;
      case '--shutdown-delay-duration':
      case '--shutdown-watch-termination-grace-period': {
        const v = take();
        const seconds = parseDurationSeconds(v);
        if (seconds === undefined) fail(`${arg}: not a duration (like 0s, 10s, 1m): ${v}`);
        if (arg === '--shutdown-delay-duration') f.shutdownDelay = seconds;
        else f.shutdownWatchGrace = seconds;
        break;
      }
      case '--shutdown-send-retry-after': {
        // A boolean flag as pflag reads it: bare, or =true/=false.
        const b = value === undefined ? true : parseGoBool(value);
        if (b === undefined) fail(`--shutdown-send-retry-after: not a boolean: ${value}`);
        f.shutdownSendRetryAfter = b;
        break;
      }
      case '--event-ttl': {
        const v = take();
        const seconds = parseDurationSeconds(v);
        if (seconds === undefined) fail(`--event-ttl: not a duration (like 1h, 30m, 0): ${v}`);
        f.eventTtl = seconds;
        break;
      }
      case '--feature-gates':
        for (const part of take().split(',')) {
          if (!part.trim()) continue;
          const [k, v] = part.split('=').map((s) => s.trim());
          if (!k || (v !== 'true' && v !== 'false')) fail(`--feature-gates: expected Name=true|false, got ${part}`);
          f.featureGates[k] = v === 'true';
        }
        break;
      case '--webhook-service-resolver': {
        const v = take();
        let parsed: Map<string, string>;
        try {
          parsed = parseServiceResolverOverrides(v);
        } catch (e) {
          fail(`--webhook-service-resolver: ${(e as Error).message}`);
        }
        for (const [k, target] of parsed) f.webhookServiceOverrides.set(k, target);
        break;
      }
      default:
        fail(`unknown flag ${arg}`);
    }
  }
  if (!!f.tlsCert !== !!f.tlsKey) fail('--tls-cert-file and --tls-private-key-file go together');
  if (f.storage === 'etcd' && !f.etcdServers) fail('--storage etcd needs --etcd-servers');
  if (f.storage !== 'etcd' && f.etcdServers) fail('--etcd-servers needs --storage etcd');
  if (f.storage === 'etcd' && f.maxRequestBytes !== undefined) fail("--max-request-bytes is for sqlite and memory: etcd enforces its own (etcd's --max-request-bytes)");
  if (f.insecureHttp && f.tlsCert) fail('--insecure-http and --tls-cert-file exclude each other');
  const timingProblem = checkLeaderElectionTiming({ ...DEFAULT_LEADER_ELECTION_TIMING, ...f.leaderElection });
  if (timingProblem) fail(`--leader-elect-*: ${timingProblem}`);
  return f;
}

function ensureGenerated(): void {
  // Compiled (the @clusterspec/server package), out/ ships inside the package, built.
  if (import.meta.url.endsWith('.js')) return;
  const needed = ['out/routes/index.ts', 'out/validators/index.ts', 'out/validators/feature-gates.ts', 'out/validators/definitions.json'];
  if (needed.every((p) => existsSync(join(ROOT, p)))) return;
  process.stdout.write('out/ is missing: running the generator (npm run generate)\n');
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'generators', 'cli.ts')], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) {
    process.stderr.write('error: the generator failed\n');
    process.exit(1);
  }
}

function kubeconfig(server: string, token: string, caFile: string | undefined): string {
  const cluster = caFile ? `    certificate-authority: ${caFile}\n` : '';
  return `apiVersion: v1
kind: Config
clusters:
- name: clusterspec
  cluster:
    server: ${server}
${cluster}users:
- name: admin
  user:
    token: ${token}
contexts:
- name: clusterspec
  context:
    cluster: clusterspec
    user: admin
    namespace: default
current-context: clusterspec
`;
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  if (flags === 'help') {
    process.stdout.write(HELP);
    return;
  }
  ensureGenerated();
  const dataDir = resolve(flags.dataDir);
  mkdirSync(dataDir, { recursive: true });

  let authenticator: TokenAuthenticator;
  let adminToken: string | undefined;
  if (flags.tokenFile) {
    authenticator = TokenAuthenticator.fromFile(flags.tokenFile);
  } else {
    const tokenPath = join(dataDir, 'admin.token');
    if (existsSync(tokenPath)) adminToken = readFileSync(tokenPath, 'utf8').trim();
    if (!adminToken) {
      adminToken = randomBytes(24).toString('base64url');
      try {
        // exclusive: replicas started together on one data directory end up with one token
        writeFileSync(tokenPath, adminToken + '\n', { mode: 0o600, flag: 'wx' });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        adminToken = readFileSync(tokenPath, 'utf8').trim();
      }
    }
    authenticator = TokenAuthenticator.fromCsv(`${adminToken},admin,admin,"system:masters"\n`);
  }

  const gen = await loadGenerated(join(ROOT, 'out'));
  const unknownGates = Object.keys(flags.featureGates).filter((k) => !(k in gen.featureGateDefaults));
  if (unknownGates.length) fail(`--feature-gates: unknown feature gate(s): ${unknownGates.join(', ')}`);
  let storage: Storage;
  const healthChecks: Record<string, () => Promise<boolean>> = {};
  if (flags.storage === 'etcd') {
    // loaded only here: the etcd client (gRPC) costs start-up time the other backends need not pay
    const { connectEtcdStorage } = await import('./storage/etcd-connect.ts');
    const etcd = await connectEtcdStorage({
      servers: flags.etcdServers ?? '',
      prefix: flags.etcdPrefix,
      caFile: flags.etcdCaFile,
      certFile: flags.etcdCertFile,
      keyFile: flags.etcdKeyFile,
      compactionIntervalSeconds: flags.etcdCompactionInterval,
    });
    for (const w of etcd.warnings) process.stderr.write(`warning: ${w}\n`);
    storage = etcd.storage;
    // both within etcd's 2 s health timeout, not the 10 s of a request
    healthChecks.storage = () => etcd.storage.checkHealth();
    healthChecks.etcd = () => etcd.storage.checkHealth();
  } else {
    storage = openStorage({ kind: flags.storage, dataDir, maxRequestBytes: flags.maxRequestBytes });
  }
  const built = await buildApiServer(gen, {
    storage,
    leaderElector: await leaderElectorFor(storage, { timing: flags.leaderElection }),
    healthChecks,
    authenticator,
    featureGates: flags.featureGates,
    webhookServiceOverrides: flags.webhookServiceOverrides,
    eventTtlMs: flags.eventTtl === undefined ? undefined : Math.round(flags.eventTtl * 1000),
    docsDir: join(ROOT, 'out', 'docs'),
    jsonSchemaDir: join(ROOT, 'out', 'jsonschema'),
    onValidatorError: (kind, e) => process.stderr.write(`warning: the ${kind} schema does not compile; requests for it will fail: ${(e as Error).message}\n`),
  });
  let tls: { cert: Buffer; key: Buffer } | undefined;
  let caFile: string | undefined;
  if (flags.tlsCert && flags.tlsKey) {
    tls = { cert: readFileSync(flags.tlsCert), key: readFileSync(flags.tlsKey) };
    caFile = resolve(flags.tlsCert);
  } else if (!flags.insecureHttp) {
    const sc = await ensureServingCert(dataDir, flags.address);
    tls = { cert: sc.cert, key: sc.key };
    caFile = sc.certFile;
  }
  const { server, port, url } = await listen(built.api, { port: flags.port, address: flags.address, tls });
  built.setServerAddress(url.replace(/^https?:\/\//, ''));

  // Before the startup lines: whoever reads them and signals finds the handlers in place.
  let firstSignalAt: number | undefined;
  const shutdown = (): void => {
    if (firstSignalAt !== undefined) {
      // A second signal exits at once, as upstream (exit code 1); one Ctrl-C reaching this process
      // twice (from the terminal and relayed by npm or the re-exec parent) is still one.
      if (Date.now() - firstSignalAt > SAME_SIGNAL_MS) process.exit(1);
      return;
    }
    firstSignalAt = Date.now();
    shutDownGracefully(server, built.api.lifecycle, {
      delayMs: flags.shutdownDelay * 1000,
      watchGraceMs: flags.shutdownWatchGrace * 1000,
      sendRetryAfter: flags.shutdownSendRetryAfter,
      requestTimeoutMs: built.api.deadlines.timeoutMs,
    })
      // the controllers stop and the leads are given up (revoking the etcd lease) while storage is still open
      .then(() => built.stop())
      .then(() => storage.close())
      .catch(() => undefined)
      .finally(() => process.exit(0));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);

  process.stdout.write(`clusterspec API server listening on ${url} (storage: ${flags.storage === 'etcd' ? `etcd ${flags.etcdServers}` : flags.storage}, data: ${dataDir})\n`);
  if (adminToken) {
    const kc = join(dataDir, 'kubeconfig');
    writeFileSync(kc, kubeconfig(url, adminToken, caFile), { mode: 0o600 });
    process.stdout.write(`admin token: ${join(dataDir, 'admin.token')}\n`);
    process.stdout.write(`try: kubectl --kubeconfig ${kc} get ns\n`);
  } else {
    process.stdout.write(`authentication: ${authenticator.size} token(s) from ${flags.tokenFile}\n`);
  }
}

main().catch((e) => {
  // A storage refusal (the data directory in use, a bad database) is the user's to fix: its message says it all.
  const text = e instanceof StorageError ? e.message : ((e as Error).stack ?? String(e));
  process.stderr.write(`error: ${text}\n`);
  process.exit(1);
});
