// Kubernetes URL library: url, isURL, getScheme, getHost, getHostname, getPort, getEscapedPath, getQuery.
// Parsing follows Go's url.ParseRequestURI: absolute URL or absolute path, no fragment.

import type { CelRegistrar } from '../registrar.ts';
import { celError } from '../values.ts';

export class CelURL {
  constructor(
    readonly raw: string,
    readonly scheme: string,
    readonly host: string,
    readonly escapedPath: string,
    readonly rawQuery: string,
  ) {}
  celEquals(o: unknown): boolean {
    return o instanceof CelURL && o.raw === this.raw;
  }
}

const URL_RE = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/s;

export function parseURL(s: string): CelURL | undefined {
  if (/[\x00-\x1f\x7f ]/.test(s) && !/^[^ ]*$/.test(s)) return undefined;
  if (/[\x00-\x1f\x7f]/.test(s)) return undefined;
  let rest = s;
  let scheme = '';
  const m = URL_RE.exec(s);
  if (m) {
    scheme = m[1];
    rest = m[2];
  } else if (!s.startsWith('/')) return undefined;
  let rawQuery = '';
  const q = rest.indexOf('?');
  if (q >= 0) {
    rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  let host = '';
  if (rest.startsWith('//')) {
    rest = rest.slice(2);
    const slash = rest.indexOf('/');
    let authority = slash >= 0 ? rest.slice(0, slash) : rest;
    rest = slash >= 0 ? rest.slice(slash) : '';
    const at = authority.lastIndexOf('@');
    if (at >= 0) authority = authority.slice(at + 1);
    if (authority.startsWith('[')) {
      const end = authority.indexOf(']');
      if (end < 0) return undefined;
      const after = authority.slice(end + 1);
      if (after !== '' && !/^:\d*$/.test(after)) return undefined;
    } else {
      const colon = authority.lastIndexOf(':');
      if (colon >= 0 && !/^\d*$/.test(authority.slice(colon + 1))) return undefined;
    }
    if (/[^a-zA-Z0-9\-._~!$&'()*+,;=:[\]%]/.test(authority)) return undefined;
    host = authority;
  } else if (scheme !== '' && !rest.startsWith('/')) {
    // opaque URL (mailto:x): Go's ParseRequestURI accepts it; path stays empty
    return new CelURL(s, scheme, '', '', rawQuery);
  }
  if (/%(?![0-9a-fA-F]{2})/.test(rest)) return undefined;
  return new CelURL(s, scheme, host, rest, rawQuery);
}

function hostname(host: string): string {
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']'));
  const colon = host.lastIndexOf(':');
  return colon >= 0 ? host.slice(0, colon) : host;
}

function port(host: string): string {
  const h = host.startsWith('[') ? host.slice(host.indexOf(']') + 1) : host;
  const colon = h.lastIndexOf(':');
  return colon >= 0 ? h.slice(colon + 1) : '';
}

function queryMap(raw: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (raw === '') return out;
  for (const part of raw.split('&')) {
    if (part === '' || part.includes(';')) continue;
    const eq = part.indexOf('=');
    const dec = (x: string): string | undefined => {
      try {
        return decodeURIComponent(x.replace(/\+/g, ' '));
      } catch {
        return undefined;
      }
    };
    const k = dec(eq >= 0 ? part.slice(0, eq) : part);
    const v = dec(eq >= 0 ? part.slice(eq + 1) : '');
    if (k === undefined || v === undefined) continue;
    const list = out.get(k) ?? [];
    list.push(v);
    out.set(k, list);
  }
  return out;
}

export function urlLibrary(r: CelRegistrar): void {
  r.type('URL', CelURL);
  r.operator('URL == URL', ((a: CelURL, b: CelURL) => a.celEquals(b)) as never);
  r.fn('url(string): URL', ((s: string) => {
    const u = parseURL(s);
    if (!u) throw celError(`URL parse error during conversion from string: ${s}`);
    return u;
  }) as never);
  r.fn('isURL(string): bool', ((s: string) => parseURL(s) !== undefined) as never);
  r.fn('URL.getScheme(): string', ((u: CelURL) => u.scheme) as never);
  r.fn('URL.getHost(): string', ((u: CelURL) => u.host) as never);
  r.fn('URL.getHostname(): string', ((u: CelURL) => hostname(u.host)) as never);
  r.fn('URL.getPort(): string', ((u: CelURL) => port(u.host)) as never);
  r.fn('URL.getEscapedPath(): string', ((u: CelURL) => u.escapedPath) as never);
  r.fn('URL.getQuery(): map<string, list<string>>', ((u: CelURL) => queryMap(u.rawQuery)) as never);
}
