// Opening the etcd backend from the command line's flags: endpoints checked as URLs, TLS files read,
// and every endpoint asked for its status before the server starts, so that a wrong or unreachable
// etcd is one line naming the endpoint and the cause, within a few seconds.

import { readFileSync } from 'node:fs';
import { Etcd3 } from 'etcd3';
import { EtcdStorage, etcdClientOptions, type EtcdStorageOptions, type EtcdTls } from './etcd.ts';
import { etcdCause } from './etcd-errors.ts';
import { StorageError } from './interface.ts';

export interface EtcdFlags {
  /** --etcd-servers, comma-separated. */
  readonly servers: string;
  readonly prefix?: string;
  readonly caFile?: string;
  readonly certFile?: string;
  readonly keyFile?: string;
  /** --etcd-compaction-interval in seconds (0 disables). */
  readonly compactionIntervalSeconds?: number;
}

/** The endpoints of --etcd-servers; a malformed one is an Invalid StorageError naming it. */
export function parseEtcdServers(servers: string): string[] {
  const endpoints = servers
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (endpoints.length === 0) throw new StorageError('Invalid', '--etcd-servers: no endpoint given (expected http://host:port[,...])');
  for (const e of endpoints) {
    let url: URL | undefined;
    try {
      url = new URL(e);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.port || url.pathname.length > 1 || url.search || url.username) {
      throw new StorageError('Invalid', `etcd endpoint ${JSON.stringify(e)}: not a client URL (expected http://host:port or https://host:port)`);
    }
  }
  return endpoints;
}

function readTlsFile(flag: string, file: string | undefined): Buffer | undefined {
  if (file === undefined) return undefined;
  try {
    return readFileSync(file);
  } catch (e) {
    throw new StorageError('Invalid', `${flag} ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

export function etcdTls(flags: EtcdFlags): EtcdTls | undefined {
  if (!!flags.certFile !== !!flags.keyFile) throw new StorageError('Invalid', '--etcd-certfile and --etcd-keyfile go together');
  const tls: EtcdTls = {
    ca: readTlsFile('--etcd-cafile', flags.caFile),
    cert: readTlsFile('--etcd-certfile', flags.certFile),
    key: readTlsFile('--etcd-keyfile', flags.keyFile),
  };
  return tls.ca || tls.cert ? tls : undefined;
}

let warningFiltered = false;

/**
 * grpc-js passes an https endpoint's IP address as the TLS server name, which Node reports once as
 * deprecation DEP0123: nothing the user can act on, and two more lines beside a one-line start-up error.
 */
function dropIpServernameWarning(): void {
  if (warningFiltered) return;
  warningFiltered = true;
  const emit = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = ((...args: unknown[]) => {
    if (args[2] === 'DEP0123') return;
    emit(...args);
  }) as typeof process.emitWarning;
}

/** Asks one endpoint for its status: undefined when it answers, else the cause in a few words. */
async function probe(endpoint: string, options: EtcdStorageOptions, timeoutMs: number): Promise<string | undefined> {
  const client = new Etcd3(etcdClientOptions({ ...options, endpoints: [endpoint], requestTimeoutMs: timeoutMs }));
  try {
    await client.maintenance.status({ deadline: Date.now() + timeoutMs });
    return undefined;
  } catch (e) {
    return etcdCause(e);
  } finally {
    client.close();
  }
}

/**
 * The etcd backend for these flags, once at least one endpoint answered within `timeoutMs`
 * (default 3 s). Rejects with a one-line StorageError: Invalid for a malformed flag, Unavailable
 * naming each endpoint and its cause when none answers.
 */
export async function connectEtcdStorage(flags: EtcdFlags, timeoutMs = 3000): Promise<{ storage: EtcdStorage; warnings: string[] }> {
  const endpoints = parseEtcdServers(flags.servers);
  const options: EtcdStorageOptions = {
    endpoints,
    prefix: flags.prefix,
    tls: etcdTls(flags),
    compactionIntervalSeconds: flags.compactionIntervalSeconds,
  };
  if (endpoints.some((e) => e.startsWith('http://')) && endpoints.some((e) => e.startsWith('https://'))) {
    throw new StorageError('Invalid', '--etcd-servers: all endpoints must use the same scheme (http:// or https://)');
  }
  if (options.tls && endpoints[0].startsWith('http://')) {
    throw new StorageError('Invalid', `etcd endpoint ${endpoints[0]}: --etcd-cafile/--etcd-certfile need https:// endpoints`);
  }
  if (endpoints.some((e) => e.startsWith('https://'))) dropIpServernameWarning();
  const causes = await Promise.all(endpoints.map((e) => probe(e, options, timeoutMs)));
  const failed = endpoints.map((e, i) => [e, causes[i]] as const).filter(([, c]) => c !== undefined);
  const text = failed.map(([e, c]) => `${e}: ${c}`).join('; ');
  if (failed.length === endpoints.length) throw new StorageError('Unavailable', `cannot reach etcd at ${text}`);
  return { storage: new EtcdStorage(options), warnings: failed.length ? [`etcd endpoint(s) not answering at start: ${text}`] : [] };
}
