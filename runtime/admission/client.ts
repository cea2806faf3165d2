// The webhook call: builds the AdmissionReview, POSTs it over verified HTTPS with a pooled
// keep-alive connection, and checks the answer. The transport (`WebhookClient.post`) is shared with
// CRD conversion webhooks (runtime/crd/conversion-webhook.ts), so both use one pool and resolver.
//
// Transport:
// - one https.Agent (keep-alive, LIFO) per (CA bundle, host:port, TLS server name): connections
//   and TLS sessions are reused across calls, never a handshake per request; agents are kept in
//   a bounded LRU and destroyed on eviction / close();
// - the server certificate is verified against `caBundle` (base64 PEM) or the system roots;
// - one deadline (`timeoutSeconds`, default 10) covers connect, TLS, request and response;
// - the response body is capped (3 MiB by default) so a huge answer cannot exhaust memory.
//
// Services: a server running outside a cluster cannot resolve `<name>.<namespace>.svc`. A
// ServiceResolver maps a service reference to a base URL; the default maps to
// `https://<name>.<namespace>.svc:<port>` unless an override is configured (for example from a
// `--webhook-service-resolver ns/name[:port]=https://host:port,...` flag, see
// parseServiceResolverOverrides). The certificate is always verified for `<name>.<namespace>.svc`,
// as upstream does, whatever address the connection goes to.

import { createHash, randomUUID } from 'node:crypto';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import {
  ADMISSION_GROUP,
  SUPPORTED_REVIEW_VERSIONS,
  type AdmissionAttributes,
  type AdmissionRejection,
  type GroupVersionKind,
  type GroupVersionResource,
  type ReviewVersion,
  type ServiceReference,
  type ValidatingWebhook,
  type WebhookClientConfig,
} from './types.ts';
import { admissionRequestOf, type RequestTarget } from './admission-request.ts';

export const DEFAULT_TIMEOUT_SECONDS = 10;
export const DEFAULT_MAX_RESPONSE_BYTES = 3 * 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// Service resolution

export interface ServiceResolver {
  /** Base URL (scheme, host, port) to reach a service; the service's path is appended. */
  resolve(ref: { namespace: string; name: string; port: number }): URL;
}

/**
 * Maps `<ns>/<name>:<port>` or `<ns>/<name>` to a base URL; anything else to
 * `https://<name>.<namespace>.svc:<port>`.
 */
export class DefaultServiceResolver implements ServiceResolver {
  readonly #overrides: Map<string, string>;
  constructor(overrides: Record<string, string> | Map<string, string> = {}) {
    this.#overrides = new Map(overrides instanceof Map ? overrides : Object.entries(overrides));
  }
  resolve(ref: { namespace: string; name: string; port: number }): URL {
    const o = this.#overrides.get(`${ref.namespace}/${ref.name}:${ref.port}`) ?? this.#overrides.get(`${ref.namespace}/${ref.name}`);
    if (o !== undefined) return new URL(o);
    return new URL(`https://${ref.name}.${ref.namespace}.svc:${ref.port}`);
  }
}

/** Parses `ns/name[:port]=https://host:port,...` (the value of --webhook-service-resolver). */
export function parseServiceResolverOverrides(flag: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of flag.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new Error(`invalid service resolver entry ${JSON.stringify(part)}: want ns/name[:port]=https://host:port`);
    const key = part.slice(0, eq);
    const target = part.slice(eq + 1);
    if (!/^[^/\s]+\/[^/:\s]+(:\d{1,5})?$/.test(key)) throw new Error(`invalid service reference ${JSON.stringify(key)}`);
    const u = new URL(target);
    if (u.protocol !== 'https:') throw new Error(`service resolver target ${JSON.stringify(target)} must be https`);
    out.set(key, target);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// AdmissionReview

/** The resource a webhook is invoked for (the request's, or an equivalent version of it). */
export type InvocationTarget = RequestTarget;

/** The first version of admissionReviewVersions we support, or undefined. */
export function pickReviewVersion(versions: readonly string[] | undefined): ReviewVersion | undefined {
  for (const v of versions ?? []) if ((SUPPORTED_REVIEW_VERSIONS as readonly string[]).includes(v)) return v as ReviewVersion;
  return undefined;
}

export function buildAdmissionReview(
  version: ReviewVersion,
  uid: string,
  attrs: AdmissionAttributes,
  target: InvocationTarget,
): Record<string, unknown> {
  const request = admissionRequestOf(attrs, target, 'review', uid);
  return { kind: 'AdmissionReview', apiVersion: `${ADMISSION_GROUP}/${version}`, request };
}

/** What one call produced (before failurePolicy is applied). */
export type CallOutcome =
  | { kind: 'allowed'; warnings: string[]; uid: string }
  | { kind: 'denied'; rejection: AdmissionRejection; warnings: string[]; uid: string }
  /** A failure subject to failurePolicy; `message` is the reason (without the `failed calling webhook` prefix). */
  | { kind: 'error'; message: string; uid?: string };

/** Upstream's ToStatusErr: the webhook's status with its message prefixed; code < 400 becomes 400. */
export function webhookRejection(webhookName: string, status: unknown): AdmissionRejection {
  const s = (status !== null && typeof status === 'object' ? status : {}) as {
    code?: unknown;
    message?: unknown;
    reason?: unknown;
    details?: unknown;
  };
  const deniedBy = `admission webhook ${goQuote(webhookName)} denied the request`;
  const message = typeof s.message === 'string' && s.message !== '' ? s.message : '';
  const reason = typeof s.reason === 'string' ? s.reason : '';
  let code = typeof s.code === 'number' && Number.isInteger(s.code) ? s.code : 0;
  if (code < 400 || code > 599) code = 400;
  const text = message !== '' ? `${deniedBy}: ${message}` : reason !== '' ? `${deniedBy}: ${reason}` : `${deniedBy} without explanation`;
  const out: AdmissionRejection = { code, reason, message: text };
  if (s.details !== null && typeof s.details === 'object' && !Array.isArray(s.details)) {
    out.details = s.details as AdmissionRejection['details'];
  }
  return out;
}

/** Go's %q for the strings we print (names are plain ASCII in practice). */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}

// ---------------------------------------------------------------------------------------------
// Transport

export interface WebhookClientOptions {
  serviceResolver?: ServiceResolver;
  maxResponseBytes?: number;
  /** Bound on cached agents (distinct CA bundle + host + server name). */
  maxAgents?: number;
  /** Per-agent socket limit. */
  maxSocketsPerHost?: number;
  /** Idle keep-alive sockets are closed after this many ms. */
  idleSocketTimeoutMs?: number;
}

export interface CallOptions {
  /** Aborts the call (e.g. the client of the API request went away). */
  signal?: AbortSignal;
}

/** A webhook's HTTP answer (any status; the caller interprets it). */
export interface WebhookResponse {
  kind: 'response';
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

interface AgentEntry {
  agent: https.Agent;
  key: string;
}

class CallError extends Error {}

export class WebhookClient {
  readonly #resolver: ServiceResolver;
  readonly #maxBytes: number;
  readonly #maxAgents: number;
  readonly #maxSockets: number;
  readonly #idleMs: number;
  readonly #agents = new Map<string, AgentEntry>();
  /** New TCP+TLS connections opened (a handshake each). */
  readonly stats = { connections: 0, requests: 0, retries: 0 };

  constructor(opts: WebhookClientOptions = {}) {
    this.#resolver = opts.serviceResolver ?? new DefaultServiceResolver();
    this.#maxBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.#maxAgents = opts.maxAgents ?? 128;
    this.#maxSockets = opts.maxSocketsPerHost ?? 64;
    this.#idleMs = opts.idleSocketTimeoutMs ?? 30_000;
  }

  /** Destroys every pooled connection. */
  close(): void {
    for (const e of this.#agents.values()) e.agent.destroy();
    this.#agents.clear();
  }

  get agentCount(): number {
    return this.#agents.size;
  }

  /** The URL and TLS server name a webhook is called at (without the timeout query). */
  endpoint(hook: { clientConfig?: WebhookClientConfig }): { url: URL; serverName: string } {
    const cc = hook.clientConfig ?? {};
    if (cc.url !== undefined && cc.url !== '') {
      const url = new URL(cc.url);
      if (url.protocol !== 'https:') throw new CallError(`webhook URL scheme must be https, got ${JSON.stringify(url.protocol.slice(0, -1))}`);
      if (url.username || url.password) throw new CallError('webhook URL must not contain user info');
      if (url.search || url.hash) throw new CallError('webhook URL must not contain a query or fragment');
      return { url, serverName: url.hostname };
    }
    if (cc.service) {
      const svc: ServiceReference = cc.service;
      const port = svc.port ?? 443;
      const base = this.#resolver.resolve({ namespace: svc.namespace, name: svc.name, port });
      const url = new URL(base.toString());
      const p = svc.path ?? '';
      url.pathname = (url.pathname.replace(/\/$/, '') + (p.startsWith('/') || p === '' ? p : `/${p}`)) || '/';
      return { url, serverName: `${svc.name}.${svc.namespace}.svc` };
    }
    throw new CallError('neither service nor url specified in webhook client config');
  }

  #agentFor(caBundle: string | undefined, url: URL, serverName: string): https.Agent {
    let ca: string | undefined;
    if (caBundle !== undefined && caBundle !== '') {
      ca = Buffer.from(caBundle, 'base64').toString('utf8');
      if (!ca.includes('-----BEGIN CERTIFICATE-----')) throw new CallError('unable to load root certificates: unable to parse bytes as PEM block');
    }
    const caKey = ca === undefined ? 'system' : createHash('sha256').update(ca).digest('hex');
    const key = `${caKey}|${url.host}|${serverName}`;
    const hit = this.#agents.get(key);
    if (hit) {
      // LRU: move to the end
      this.#agents.delete(key);
      this.#agents.set(key, hit);
      return hit.agent;
    }
    const stats = this.stats;
    const agent = new (class extends https.Agent {
      createConnection(...args: unknown[]): Socket {
        stats.connections++;
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        return (https.Agent.prototype as any).createConnection.apply(this, args);
      }
    })({
      keepAlive: true,
      keepAliveMsecs: 1000,
      maxSockets: this.#maxSockets,
      maxFreeSockets: this.#maxSockets,
      scheduling: 'lifo',
      timeout: this.#idleMs,
      ca,
      servername: isIP(serverName) ? undefined : serverName,
      rejectUnauthorized: true,
      minVersion: 'TLSv1.2',
      // the certificate is checked for serverName (a service's DNS name), whatever host we dial
      checkServerIdentity: (_host: string, cert: PeerCertificate) => checkServerIdentity(serverName, cert),
    });
    this.#agents.set(key, { agent, key });
    while (this.#agents.size > this.#maxAgents) {
      const oldest = this.#agents.keys().next().value as string;
      this.#agents.get(oldest)?.agent.destroy();
      this.#agents.delete(oldest);
    }
    return agent;
  }

  /**
   * Calls the webhook for one request. Never throws: failures come back as `{kind: 'error'}`
   * for the dispatcher to apply failurePolicy.
   */
  async call(hook: ValidatingWebhook, attrs: AdmissionAttributes, target: InvocationTarget, opts: CallOptions = {}): Promise<CallOutcome> {
    const version = pickReviewVersion(hook.admissionReviewVersions);
    if (!version) return { kind: 'error', message: 'webhook does not accept known AdmissionReview versions (v1, v1beta1)' };
    const uid = randomUUID();
    const timeoutSeconds = hook.timeoutSeconds !== undefined && hook.timeoutSeconds > 0 ? hook.timeoutSeconds : DEFAULT_TIMEOUT_SECONDS;
    const body = Buffer.from(JSON.stringify(buildAdmissionReview(version, uid, attrs, target)));
    const res = await this.post(hook.clientConfig, body, timeoutSeconds, opts);
    if (res.kind === 'error') return { kind: 'error', message: res.message, uid };
    return interpretResponse(hook.name, version, uid, res);
  }

  /**
   * POSTs a JSON body to a webhook (admission or conversion) over the pooled, verified transport,
   * with `?timeout=<n>s` as upstream's webhook client adds. Never throws: a failure comes back as
   * `{kind: 'error'}` in upstream's words (`Post "<url>": <cause>`).
   */
  async post(
    clientConfig: WebhookClientConfig | undefined,
    body: Buffer,
    timeoutSeconds: number,
    opts: CallOptions = {},
  ): Promise<WebhookResponse | { kind: 'error'; message: string }> {
    let url: URL;
    let agent: https.Agent;
    try {
      const ep = this.endpoint({ clientConfig });
      url = ep.url;
      url.search = `?timeout=${timeoutSeconds}s`;
      agent = this.#agentFor(clientConfig?.caBundle, url, ep.serverName);
    } catch (e) {
      return { kind: 'error', message: e instanceof Error ? e.message : String(e) };
    }
    try {
      return { kind: 'response', ...(await this.#post(agent, url, body, timeoutSeconds * 1000, opts.signal)) };
    } catch (e) {
      return { kind: 'error', message: `Post ${goQuote(url.toString())}: ${e instanceof Error ? e.message : String(e)}` };
    }
  }

  #post(
    agent: https.Agent,
    url: URL,
    body: Buffer,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> {
    const deadline = Date.now() + timeoutMs;
    const attempt = (retried: boolean): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> =>
      new Promise((resolve, reject) => {
        this.stats.requests++;
        let settled = false;
        let gotResponse = false;
        const finish = (err: Error | null, value?: { status: number; headers: IncomingMessage['headers']; body: Buffer }): void => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          if (err) {
            req.destroy();
            reject(err);
          } else resolve(value!);
        };
        const remaining = Math.max(1, deadline - Date.now());
        const timer = setTimeout(() => finish(new CallError('context deadline exceeded')), remaining);
        const onAbort = (): void => finish(new CallError('context canceled'));
        const req = https.request(url, {
          method: 'POST',
          agent,
          headers: {
            'Content-Type': 'application/json',
            Accept: 'application/json, */*',
            'Content-Length': String(body.length),
          },
        });
        if (signal?.aborted) {
          finish(new CallError('context canceled'));
          return;
        }
        signal?.addEventListener('abort', onAbort, { once: true });
        req.on('error', (err: NodeJS.ErrnoException) => {
          if (settled) return;
          // A pooled connection the server closed while idle: retry once on a fresh one.
          if (!retried && !gotResponse && req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) {
            settled = true;
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
            this.stats.retries++;
            attempt(true).then(resolve, reject);
            return;
          }
          finish(new CallError(transportErrorText(err, url)));
        });
        req.on('response', (res) => {
          gotResponse = true;
          const status = res.statusCode ?? 0;
          const declared = Number(res.headers['content-length']);
          if (Number.isFinite(declared) && declared > this.#maxBytes) {
            finish(new CallError(`response body too large: exceeds ${this.#maxBytes} bytes`));
            res.destroy();
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > this.#maxBytes) {
              finish(new CallError(`response body too large: exceeds ${this.#maxBytes} bytes`));
              res.destroy();
              return;
            }
            chunks.push(c);
          });
          res.on('end', () => finish(null, { status, headers: res.headers, body: Buffer.concat(chunks) }));
          res.on('aborted', () => finish(new CallError('unexpected EOF')));
          res.on('error', (err) => finish(new CallError(transportErrorText(err as NodeJS.ErrnoException, url))));
        });
        req.end(body);
      });
    return attempt(false);
  }
}

function isIP(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':');
}

/** Node transport errors in the words of Go's net/http and crypto/tls (what upstream prints). */
export function transportErrorText(err: NodeJS.ErrnoException, url: URL): string {
  const hostPort = `${url.hostname.replace(/^\[|\]$/g, '')}:${url.port || '443'}`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${hostPort}: connect: connection refused`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${url.hostname}: no such host`;
    case 'ETIMEDOUT':
      return `dial tcp ${hostPort}: i/o timeout`;
    case 'ECONNRESET':
      return err.message === 'socket hang up' ? 'EOF' : `read tcp ${hostPort}: read: connection reset by peer`;
    case 'EPIPE':
      return `write tcp ${hostPort}: write: broken pipe`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'CERT_SIGNATURE_FAILURE':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'CERT_HAS_EXPIRED':
    case 'CERT_NOT_YET_VALID':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: ${err.message}`;
    default:
      if (err.message === 'socket hang up') return 'EOF';
      return err.message;
  }
}

const STATUS_TEXT: Record<number, string> = {
  400: 'the server rejected our request for an unknown reason',
  401: 'the server has asked for the client to provide credentials',
  403: 'forbidden',
  404: 'the server could not find the requested resource',
  405: 'the server does not allow this method on the requested resource',
  409: 'the server reported a conflict',
  413: 'the server has rejected the request because the request is too large',
  415: 'the server responded with the status code 415 but did not return more information',
  422: 'the server rejected our request due to an error in our request',
  429: 'the server has received too many requests and has asked us to try again later',
  503: 'the server is currently unable to handle the request',
  504: 'the server was unable to return a response in the time allotted, but may still be processing the request',
};

/** client-go's text for a non-2xx answer that is not a Status. */
export function unstructuredResponseError(status: number, headers: IncomingMessage['headers'], body: Buffer): string {
  const ct = String(headers['content-type'] ?? '');
  const text = ct.startsWith('text/') ? body.subarray(0, 2048).toString('utf8').trim() : '';
  if (status >= 500 && !(status in STATUS_TEXT)) {
    return `an error on the server (${goQuote(text || 'unknown')}) has prevented the request from succeeding`;
  }
  return STATUS_TEXT[status] ?? `the server responded with the status code ${status} but did not return more information`;
}

function interpretResponse(
  webhookName: string,
  version: ReviewVersion,
  uid: string,
  res: { status: number; headers: IncomingMessage['headers']; body: Buffer },
): CallOutcome {
  if (res.status < 200 || res.status > 206) {
    // A Status body is used as the error, as client-go does.
    try {
      const s = JSON.parse(res.body.toString('utf8')) as { kind?: unknown; message?: unknown };
      if (s && s.kind === 'Status' && typeof s.message === 'string' && s.message !== '') return { kind: 'error', message: s.message, uid };
    } catch {
      // not JSON
    }
    return { kind: 'error', message: unstructuredResponseError(res.status, res.headers, res.body), uid };
  }
  let review: unknown;
  try {
    review = JSON.parse(res.body.toString('utf8'));
  } catch (e) {
    return { kind: 'error', message: `couldn't get version/kind; json parse error: ${e instanceof Error ? e.message : String(e)}`, uid };
  }
  if (review === null || typeof review !== 'object' || Array.isArray(review)) {
    return { kind: 'error', message: `couldn't get version/kind; json parse error: not an object`, uid };
  }
  const r = review as { apiVersion?: unknown; kind?: unknown; response?: unknown };
  const want = `${ADMISSION_GROUP}/${version}`;
  const got = `${typeof r.apiVersion === 'string' ? r.apiVersion : ''}, Kind=${typeof r.kind === 'string' ? r.kind : ''}`;
  if (r.response === null || r.response === undefined || typeof r.response !== 'object' || Array.isArray(r.response)) {
    return { kind: 'error', message: 'received invalid webhook response: webhook response was absent', uid };
  }
  const resp = r.response as { uid?: unknown; allowed?: unknown; status?: unknown; warnings?: unknown };
  if (version === 'v1') {
    const ruid = typeof resp.uid === 'string' ? resp.uid : '';
    if (ruid !== uid) return { kind: 'error', message: `received invalid webhook response: expected response.uid=${goQuote(uid)}, got ${goQuote(ruid)}`, uid };
    if (r.apiVersion !== want || r.kind !== 'AdmissionReview') {
      return { kind: 'error', message: `received invalid webhook response: expected webhook response of ${want}, Kind=AdmissionReview, got ${got}`, uid };
    }
  }
  if (resp.allowed !== undefined && typeof resp.allowed !== 'boolean') {
    return { kind: 'error', message: 'received invalid webhook response: response.allowed must be a boolean', uid };
  }
  const warnings = Array.isArray(resp.warnings) ? resp.warnings.filter((w): w is string => typeof w === 'string') : [];
  if (resp.allowed === true) return { kind: 'allowed', warnings, uid };
  return { kind: 'denied', rejection: webhookRejection(webhookName, resp.status), warnings, uid };
}
