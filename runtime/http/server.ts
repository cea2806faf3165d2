// The API server's request dispatch on node:http: authenticate, match a generated route (compiled
// path matcher), run its handler; plus discovery, /version, health and OpenAPI.

import { createHash } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { ApiError } from '../errors/api-error.ts';
import type { Registry } from '../registry/registry.ts';
import type { TokenAuthenticator, UserInfo } from './auth.ts';
import { aggregatedContentType, Discovery } from './discovery.ts';
import { handlers, type Handler, type RequestContext } from './handlers/index.ts';
import { exemptFromShutdownRejection, ServerLifecycle } from './lifecycle.ts';
import { negotiatePlain, wantsAggregatedDiscovery } from './negotiation.ts';
import { etagMatches, negotiateOpenApiV2, OPENAPI_V2_PROTOBUF, openApiV2Protobuf, type OpenApiDocuments } from './openapi.ts';
import { PathMatcher } from './path-matcher.ts';
import { hasWatchParam } from './query-bool.ts';
import { RequestDeadlines } from './request-deadlines.ts';
import type { CustomResourceRouter } from './custom-resources.ts';
import type { StaticSite } from './docs-static.ts';
import { ReviewRouter } from './reviews.ts';
import { allowAllAuthorizer, type Authorizer } from '../authorization/authorizer.ts';
import { encode, sendError, sendNotFoundPage, sendNotFoundStatus, sendText, sendValue, wantsPretty } from './respond.ts';
import type { Route, RouteHandlers, RouteTable } from './route-types.ts';
import { shapesForResource } from './resource-shapes.ts';
import type { Schema } from '../schema/types.ts';

export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  [k: string]: string;
}

export const DEFAULT_VERSION: VersionInfo = {
  major: '1',
  minor: '33',
  emulationMajor: '1',
  emulationMinor: '33',
  minCompatibilityMajor: '1',
  minCompatibilityMinor: '32',
  gitVersion: 'v1.33.0-clusterspec',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: `node${process.versions.node}`,
  compiler: 'tsx',
  platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
};

export interface ApiServerOptions {
  registry: Registry;
  /** `allRoutes` of out/routes/index.ts. */
  routes: <H>(handlers: RouteHandlers<H>) => RouteTable<H>[];
  authenticator: TokenAuthenticator;
  openapi: OpenApiDocuments;
  /** The named shapes (definitions.json) for strategic merge patch; without them only JSON and merge patches are accepted. */
  shapes?: Record<string, Schema>;
  version?: VersionInfo;
  /** Health checks beyond `ping` (name → check; a throw or false fails it). */
  healthChecks?: Record<string, () => Promise<boolean>>;
  /** Where /api tells clients to reach the server (host:port). */
  serverAddress?: () => string;
  /** Custom resources of established CRDs (runtime/http/custom-resources.ts); undefined: none. */
  customResources?: CustomResourceRouter;
  /** Answers the self reviews (and, through bootstrap, webhook match conditions); default: allow all. */
  authorizer?: Authorizer;
  /** Static sites open without a token like /version: the API reference (out/docs) at /docs/ and the JSON Schemas its pages link to. */
  staticSites?: StaticSite[];
}

interface Bound {
  route: Route<Handler>;
  table: RouteTable<Handler>;
}

const OPEN_PATHS = new Set(['/healthz', '/livez', '/readyz', '/version']);

/**
 * An Authorization header upstream's bearer token authenticator reads. Another scheme, or `Bearer`
 * without a token, it leaves alone, and the request is anonymous (allowed on the open paths).
 */
const BEARER_WITH_TOKEN = /^\s*bearer\s+\S/i;

/** The query of a request without one: shared, and nothing writes to a request's query. */
const NO_QUERY = new URLSearchParams();

/** A path WHATWG URL parsing leaves as it is: no dot segments, backslashes, `%`, or other characters it would encode. */
const PLAIN_PATH = /^\/(?:[A-Za-z0-9\-_~:@!$&'()*+,;=]+\/)*[A-Za-z0-9\-_~:@!$&'()*+,;=]*$/;

/**
 * Path and query of a request target, as `new URL(target, 'http://localhost')` gives them. Plain
 * paths (nearly every API request) skip the URL parser, which is a measurable share of a GET.
 */
export function splitRequestUrl(target: string): { pathname: string; query: URLSearchParams } {
  const q = target.indexOf('?');
  const raw = q < 0 ? target : target.slice(0, q);
  const hash = target.indexOf('#');
  if (hash < 0 && PLAIN_PATH.test(raw)) return { pathname: raw, query: q < 0 ? NO_QUERY : new URLSearchParams(target.slice(q + 1)) };
  const url = new URL(target, 'http://localhost');
  return { pathname: url.pathname, query: url.searchParams };
}

export class ApiServer {
  readonly tables: RouteTable<Handler>[];
  readonly discovery: Discovery;
  private readonly matcher = new PathMatcher<Bound>();
  private readonly options: ApiServerOptions;
  private readonly discoveryCache = new Map<string, { body: string; etag: string }>();
  /** The virtual, create-only self reviews (never stored). */
  private readonly reviews: ReviewRouter;

  constructor(options: ApiServerOptions) {
    this.options = options;
    this.tables = options.routes(handlers);
    for (const table of this.tables) {
      for (const route of table.routes) this.matcher.add(route.path, route.method, { route, table });
    }
    this.reviews = new ReviewRouter(options.authorizer ?? allowAllAuthorizer);
    this.discovery = new Discovery(this.tables, this.reviews.groupVersions());
  }

  /** Ordinary requests get upstream's default request timeout (60 s), then 504; watches are bounded by timeoutSeconds. */
  readonly deadlines = new RequestDeadlines<ServerResponse>(60_000, (res) => {
    if (!res.headersSent) sendError(res, ApiError.timeout('request did not complete within the allotted timeout', 0));
  });

  /** Graceful termination: what runtime/http/graceful-shutdown.ts moves through, consulted per request. */
  readonly lifecycle = new ServerLifecycle();

  /** The node:http request listener. (No closures per request: tsx's keepNames wraps each one in a costly call.) */
  readonly listener: RequestListener = (req, res) => {
    void this.handle(req, res);
  };

  /** One async frame per request (each nested one costs a measurable share of a GET); never throws. */
  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const tracked = !url.includes('watch') || !(hasWatchParam(url) || /^\/apis?\/(.+\/)?watch\//.test(url));
    if (tracked) {
      this.deadlines.track(res);
      this.lifecycle.requestStarted(res);
    } else this.lifecycle.watchStarted(res);
    let pretty = false;
    try {
      const { pathname, query } = splitRequestUrl(url);
      const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
      pretty = wantsPretty(req, query);
      // Before authentication, as upstream's WithRetryAfter / WithWaitGroup filters run.
      if (this.lifecycle.rejecting && !exemptFromShutdownRejection(path, req.headers['user-agent'])) return this.rejectWhileShuttingDown(res, pretty);
      const site = this.staticSiteFor(pathname);
      if (site) {
        if (this.options.authenticator.authenticate(req.headers) === null && BEARER_WITH_TOKEN.test(req.headers.authorization ?? '')) throw ApiError.unauthorized();
        return await site.serve(req, res, pathname);
      }
      if (OPEN_PATHS.has(path) || /^\/(healthz|livez|readyz)\/[^/]+$/.test(path)) {
        // Anyone may ask without credentials, but a bearer token that does not authenticate is 401 here too, as upstream.
        if (this.options.authenticator.authenticate(req.headers) === null && BEARER_WITH_TOKEN.test(req.headers.authorization ?? '')) throw ApiError.unauthorized();
        return await this.serveOpen(req, res, path, query);
      }
      const user = this.authenticate(req);
      if (path === '/api' || path === '/apis' || path.startsWith('/api/') || path.startsWith('/apis/')) {
        const matched = this.matcher.match(path);
        if (matched) {
          const bound = matched.byMethod.get(req.method ?? 'GET');
          if (!bound) throw ApiError.methodNotAllowed();
          return await this.serveRoute(req, res, bound, matched.params, query, user);
        }
        if (await this.reviews.serve(req, res, path, query, user)) return;
        if (this.options.customResources && (await this.options.customResources.serve(req, res, path, query, user))) return;
        if (req.method === 'GET' && (await this.serveDiscovery(req, res, path, pretty))) return;
        return this.claimedByBuiltInGroup(path) ? sendNotFoundStatus(res, pretty) : sendNotFoundPage(res);
      }
      if (path === '/openapi/v2' || path === '/openapi/v3' || path.startsWith('/openapi/v3/')) {
        if (await this.serveOpenApi(req, res, path, query)) return;
      }
      return sendNotFoundPage(res);
    } catch (e) {
      sendError(res, e, pretty);
    } finally {
      if (tracked) {
        this.deadlines.done(res);
        this.lifecycle.requestDone(res);
      }
    }
  }

  /** A request arriving once the server stopped accepting: upstream's WithWaitGroup (503) or WithRetryAfter (429) answer. */
  private rejectWhileShuttingDown(res: ServerResponse, pretty: boolean): void {
    if (this.lifecycle.rejecting === 'retry-after') {
      return sendText(res, 429, 'The apiserver is shutting down, please try again later.\n', { 'Retry-After': '5', Connection: 'close' });
    }
    res.setHeader('Retry-After', '1');
    sendError(res, ApiError.serviceUnavailable('apiserver is shutting down'), pretty);
  }

  /** The static site owning a path; a plain loop, as the request path creates no closures. */
  private staticSiteFor(pathname: string): StaticSite | undefined {
    for (const site of this.options.staticSites ?? []) if (site.owns(pathname)) return site;
    return undefined;
  }

  private builtInGroups: Set<string> | undefined;

  /**
   * Whether upstream's go-restful container claims the path (a web service of /api, or of a built-in
   * group /apis/<group>): there an unknown path is a NotFound Status; elsewhere (unknown and custom
   * resource groups, other paths) the plain-text 404 page.
   */
  private claimedByBuiltInGroup(path: string): boolean {
    if (path.startsWith('/api/')) return true;
    if (!path.startsWith('/apis/')) return false;
    this.builtInGroups ??= new Set(this.tables.map((t) => t.resource.group).filter((g) => g !== ''));
    return this.builtInGroups.has(path.slice('/apis/'.length).split('/')[0]);
  }

  private authenticate(req: IncomingMessage): UserInfo {
    const user = this.options.authenticator.authenticate(req.headers);
    if (!user) throw ApiError.unauthorized();
    // Upstream drops the credentials once used; clearing (not deleting) keeps the headers object fast.
    req.headers.authorization = undefined;
    return user;
  }

  /** Not async: the handler's promise is the request's (one frame less per request). */
  private serveRoute(
    req: IncomingMessage,
    res: ServerResponse,
    bound: Bound,
    params: Record<string, string>,
    query: URLSearchParams,
    user: UserInfo,
  ): Promise<void> {
    const d = bound.table.resource;
    const store = this.options.registry.storeFor(d.group, d.plural);
    if (!store) throw ApiError.notFound({ group: d.group, plural: d.plural }, params.name ?? '');
    const ctx: RequestContext = {
      req,
      res,
      query,
      params: { namespace: params.namespace, name: params.name },
      route: bound.route,
      store,
      user,
      shapes: shapesForResource(this.options.shapes, d),
    };
    return bound.route.handler(ctx);
  }

  // ---------------------------------------------------------------- open endpoints

  private async serveOpen(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') throw ApiError.methodNotAllowed();
    if (path === '/version') {
      const enc = negotiatePlain(req.headers.accept, false);
      return sendValue(res, 200, this.options.version ?? DEFAULT_VERSION, 'application/json', enc, wantsPretty(req, query) || true);
    }
    const [, name, single] = path.split('/');
    const checks: Record<string, () => Promise<boolean>> = { ping: async () => true, ...(this.options.healthChecks ?? {}) };
    // Upstream's readyz-only `shutdown` check: fails from the moment shutdown is initiated.
    if (name === 'readyz') checks.shutdown = async () => !this.lifecycle.shutdownInitiated;
    if (single !== undefined) {
      const check = checks[single];
      if (!check) return sendNotFoundPage(res);
      const ok = await check().catch(() => false);
      return ok ? sendText(res, 200, 'ok') : sendText(res, 500, `internal server error: ${single} check failed\n`);
    }
    const excluded = new Set(query.getAll('exclude'));
    const lines: string[] = [];
    let failed = false;
    for (const [n, check] of Object.entries(checks)) {
      if (excluded.has(n)) {
        lines.push(`[+]${n} excluded: ok`);
        continue;
      }
      const ok = await check().catch(() => false);
      if (!ok) failed = true;
      lines.push(ok ? `[+]${n} ok` : `[-]${n} failed: reason withheld`);
    }
    const verbose = query.has('verbose');
    if (failed) return sendText(res, 500, `${lines.join('\n')}\n${name} check failed\n`);
    if (verbose) return sendText(res, 200, `${lines.join('\n')}\n${name} check passed\n`);
    return sendText(res, 200, 'ok');
  }

  // ---------------------------------------------------------------- discovery

  private address(req: IncomingMessage): string {
    return this.options.serverAddress?.() ?? req.headers.host ?? '127.0.0.1';
  }

  private sendCached(req: IncomingMessage, res: ServerResponse, cacheKey: string, make: () => object, contentType: string, pretty: boolean): void {
    let entry = this.discoveryCache.get(cacheKey);
    if (!entry) {
      const body = encode(make(), 'json', false);
      entry = { body, etag: `"${createHash('sha512').update(body).digest('hex').toUpperCase()}"` };
      this.discoveryCache.set(cacheKey, entry);
    }
    const headers = { ETag: entry.etag, Vary: 'Accept', 'Cache-Control': 'public' };
    if (req.headers['if-none-match'] === entry.etag) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    const body = pretty ? encode(JSON.parse(entry.body), 'json', true) : entry.body;
    res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body), ...headers });
    res.end(body);
  }

  private merged: { generation: number; discovery: Discovery } | undefined;

  /** The built-in discovery plus the custom resources served right now (rebuilt when they change). */
  private currentDiscovery(): Discovery {
    const cr = this.options.customResources;
    if (!cr) return this.discovery;
    if (this.merged?.generation !== cr.generation) {
      this.merged = { generation: cr.generation, discovery: new Discovery(this.tables, [...this.reviews.groupVersions(), ...cr.groupVersions()]) };
      this.discoveryCache.clear();
    }
    return this.merged.discovery;
  }

  private async serveDiscovery(req: IncomingMessage, res: ServerResponse, path: string, pretty: boolean): Promise<boolean> {
    const d = this.currentDiscovery();
    const aggregatedGroup = path === '/api' || path === '/apis' ? wantsAggregatedDiscovery(req.headers.accept) : undefined;
    if (aggregatedGroup) {
      this.sendCached(req, res, `agg:${path}:${aggregatedGroup}`, () => d.aggregated(path === '/api', aggregatedGroup), aggregatedContentType(aggregatedGroup), pretty);
      return true;
    }
    let doc: object | undefined;
    if (path === '/api') doc = d.apiVersions(this.address(req));
    else if (path === '/apis') doc = d.apiGroupList();
    else {
      const parts = path.split('/').slice(1);
      if (parts[0] === 'api' && parts.length === 2) doc = d.apiResourceList('', parts[1]);
      else if (parts[0] === 'apis' && parts.length === 2) doc = d.apiGroup1(parts[1]);
      else if (parts[0] === 'apis' && parts.length === 3) doc = d.apiResourceList(parts[1], parts[2]);
    }
    if (!doc) return false;
    negotiatePlain(req.headers.accept, false);
    const value = doc;
    if (path === '/api') {
      sendValue(res, 200, value, 'application/json', 'json', pretty);
      return true;
    }
    this.sendCached(req, res, `legacy:${path}`, () => value, 'application/json', pretty);
    return true;
  }

  // ---------------------------------------------------------------- OpenAPI

  private async serveOpenApi(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<boolean> {
    const docs = this.options.openapi;
    const pretty = wantsPretty(req, query);
    if (path === '/openapi/v2') {
      if (!docs.v2) return false;
      // kube-openapi: JSON or gnostic protobuf (kubectl's client-side validation), one ETag for both (Vary: Accept)
      const format = negotiateOpenApiV2(req.headers.accept);
      if (!format) throw ApiError.notAcceptable(['application/json', OPENAPI_V2_PROTOBUF]);
      const etag = `"${docs.v2.hash}"`;
      if (etagMatches(req.headers['if-none-match'], etag)) {
        res.writeHead(304, { ETag: etag, Vary: 'Accept' });
        res.end();
        return true;
      }
      const body = format.format === 'protobuf' ? openApiV2Protobuf(docs.v2) : docs.v2.body;
      res.writeHead(200, { 'Content-Type': format.contentType, ETag: etag, 'Content-Length': body.length, Vary: 'Accept' });
      res.end(body);
      return true;
    }
    if (path === '/openapi/v3') {
      negotiatePlain(req.headers.accept, false);
      sendValue(res, 200, docs.index(), 'application/json', 'json', pretty);
      return true;
    }
    const key = path.slice('/openapi/v3/'.length);
    const doc = docs.v3.get(key);
    if (!doc) return false;
    negotiatePlain(req.headers.accept, false);
    const hash = query.get('hash');
    if (hash !== null && hash !== doc.hash) {
      res.writeHead(301, { Location: `/openapi/v3/${key}?hash=${doc.hash}`, 'Content-Length': 0 });
      res.end();
      return true;
    }
    const etag = `"${doc.hash}"`;
    const headers: Record<string, string | number> = { ETag: etag, Vary: 'Accept' };
    if (hash !== null) {
      headers['Cache-Control'] = 'public, immutable';
      headers.Expires = new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString();
    } else headers['Cache-Control'] = 'no-cache, private';
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, headers);
      res.end();
      return true;
    }
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': doc.body.length, ...headers });
    res.end(doc.body);
    return true;
  }
}
