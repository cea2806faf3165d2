// `npm start`: the clusterspec API server.
//
//   tsx runtime/cli.ts [--port 8080] [--address 127.0.0.1] [--data-dir ./data] [--storage sqlite|memory]
//                      [--token-file tokens.csv] [--tls-cert-file f --tls-private-key-file f]
//                      [--feature-gates Name=true,...] [--webhook-service-resolver ns/name[:port]=https://host:port,...]
//
// Without --token-file, the first start creates an admin token (<data-dir>/admin.token) and a
// kubeconfig (<data-dir>/kubeconfig); a restart keeps data and token.

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseServiceResolverOverrides } from './admission/index.ts';
import { TokenAuthenticator } from './http/auth.ts';
import { buildApiServer, listen, loadGenerated } from './http/bootstrap.ts';
import { ensureServingCert } from './http/serving-cert.ts';
import { openStorage, StorageError } from './storage/index.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const HELP = `clusterspec API server

Usage: npm start -- [flags]      (or: tsx runtime/cli.ts [flags])

Flags:
  --port N                      port to listen on (default 8080; 0 picks a free port)
  --address ADDR                address to bind (default 127.0.0.1)
  --data-dir DIR                data directory: database, admin token, kubeconfig (default ./data)
  --storage sqlite|memory       storage backend (default sqlite; memory keeps nothing)
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
  --help                        show this help
`;

interface Flags {
  port: number;
  address: string;
  dataDir: string;
  storage: 'sqlite' | 'memory';
  tokenFile?: string;
  tlsCert?: string;
  tlsKey?: string;
  featureGates: Record<string, boolean>;
  insecureHttp: boolean;
  webhookServiceOverrides: Map<string, string>;
}

function fail(msg: string): never {
  process.stderr.write(`error: ${msg}\n\n${HELP}`);
  process.exit(2);
}

export function parseFlags(argv: readonly string[]): Flags | 'help' {
  const f: Flags = { port: 8080, address: '127.0.0.1', dataDir: './data', storage: 'sqlite', featureGates: {}, insecureHttp: false, webhookServiceOverrides: new Map() };
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
        if (v !== 'sqlite' && v !== 'memory') fail(`--storage: must be sqlite or memory, got ${v}`);
        f.storage = v;
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
  if (f.insecureHttp && f.tlsCert) fail('--insecure-http and --tls-cert-file exclude each other');
  return f;
}

function ensureGenerated(): void {
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
      writeFileSync(tokenPath, adminToken + '\n', { mode: 0o600 });
    }
    authenticator = TokenAuthenticator.fromCsv(`${adminToken},admin,admin,"system:masters"\n`);
  }

  const gen = await loadGenerated(join(ROOT, 'out'));
  const unknownGates = Object.keys(flags.featureGates).filter((k) => !(k in gen.featureGateDefaults));
  if (unknownGates.length) fail(`--feature-gates: unknown feature gate(s): ${unknownGates.join(', ')}`);
  const storage = openStorage({ kind: flags.storage, dataDir });
  const built = await buildApiServer(gen, {
    storage,
    authenticator,
    featureGates: flags.featureGates,
    webhookServiceOverrides: flags.webhookServiceOverrides,
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

  process.stdout.write(`clusterspec API server listening on ${url} (storage: ${flags.storage}, data: ${dataDir})\n`);
  if (adminToken) {
    const kc = join(dataDir, 'kubeconfig');
    writeFileSync(kc, kubeconfig(url, adminToken, caFile), { mode: 0o600 });
    process.stdout.write(`admin token: ${join(dataDir, 'admin.token')}\n`);
    process.stdout.write(`try: kubectl --kubeconfig ${kc} get ns\n`);
  } else {
    process.stdout.write(`authentication: ${authenticator.size} token(s) from ${flags.tokenFile}\n`);
  }

  let closing = false;
  const shutdown = (): void => {
    if (closing) return;
    closing = true;
    built.stop();
    server.close();
    server.closeAllConnections();
    storage
      .close()
      .catch(() => undefined)
      .finally(() => process.exit(0));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((e) => {
  // A storage refusal (the data directory in use, a bad database) is the user's to fix: its message says it all.
  const text = e instanceof StorageError ? e.message : ((e as Error).stack ?? String(e));
  process.stderr.write(`error: ${text}\n`);
  process.exit(1);
});
