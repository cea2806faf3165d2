// Test support (no production use): a throwaway CA and server certificate made with the openssl
// command line, and a real HTTPS webhook server on 127.0.0.1 whose behaviour is chosen by path.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestPKI {
  caPem: string;
  caBundle: string; // base64 of the PEM, as in clientConfig.caBundle
  key: string;
  cert: string;
}

/** A CA and a server certificate for 127.0.0.1, localhost and webhook.default.svc. */
export function makePKI(): TestPKI {
  const dir = mkdtempSync(join(tmpdir(), 'admission-pki-'));
  try {
    const ossl = (args: string[]): void => {
      execFileSync('openssl', args, { cwd: dir, stdio: 'pipe', timeout: 20_000 });
    };
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    ossl(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=admission-test-ca']);
    ossl(['req', ...ec, '-keyout', 'srv.key', '-out', 'srv.csr', '-subj', '/CN=127.0.0.1']);
    writeFileSync(
      join(dir, 'ext.cnf'),
      [
        'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:webhook.default.svc',
        'basicConstraints=CA:FALSE',
        'keyUsage=digitalSignature,keyEncipherment',
        'extendedKeyUsage=serverAuth',
        '',
      ].join('\n'),
    );
    ossl(['x509', '-req', '-in', 'srv.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'srv.crt', '-days', '2', '-extfile', 'ext.cnf']);
    const caPem = readFileSync(join(dir, 'ca.crt'), 'utf8');
    return {
      caPem,
      caBundle: Buffer.from(caPem).toString('base64'),
      key: readFileSync(join(dir, 'srv.key'), 'utf8'),
      cert: readFileSync(join(dir, 'srv.crt'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface SeenRequest {
  path: string;
  query: string;
  review: { apiVersion: string; kind: string; request: Record<string, unknown> };
}

export type Handler = (review: SeenRequest['review'], req: IncomingMessage, res: ServerResponse) => void;

export interface WebhookServer {
  port: number;
  url(path: string): string;
  /** TLS handshakes completed (one per new connection). */
  readonly handshakes: number;
  /** TCP connections accepted. */
  readonly connections: number;
  seen: SeenRequest[];
  handlers: Map<string, Handler>;
  close(): Promise<void>;
}

export function reply(res: ServerResponse, review: SeenRequest['review'], response: Record<string, unknown>, opts: { apiVersion?: string; uid?: string } = {}): void {
  const body = JSON.stringify({
    apiVersion: opts.apiVersion ?? review.apiVersion,
    kind: 'AdmissionReview',
    response: { uid: opts.uid ?? review.request.uid, ...response },
  });
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

export async function startWebhookServer(pki: TestPKI): Promise<WebhookServer> {
  let handshakes = 0;
  let connections = 0;
  const sockets = new Set<Socket>();
  const seen: SeenRequest[] = [];
  const handlers = new Map<string, Handler>();
  const server = https.createServer({ key: pki.key, cert: pki.cert, keepAliveTimeout: 60_000, requestTimeout: 30_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size < 8 * 1024 * 1024) chunks.push(c);
    });
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'https://127.0.0.1');
      let review: SeenRequest['review'];
      try {
        review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end('bad json');
        return;
      }
      seen.push({ path: u.pathname, query: u.search, review });
      const h = handlers.get(u.pathname);
      if (!h) {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('no handler');
        return;
      }
      h(review, req, res);
    });
  });
  server.on('connection', (s: Socket) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('secureConnection', () => handshakes++);
  server.on('tlsClientError', () => {
    // a client refusing our certificate: counted by the test through its own outcome
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path) => `https://127.0.0.1:${port}${path}`,
    get handshakes() {
      return handshakes;
    },
    get connections() {
      return connections;
    },
    seen,
    handlers,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
