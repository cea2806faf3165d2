// Serves a generated static site (the API reference in out/docs) under a path prefix: files are read
// from the directory given at assembly, never imported; no path may leave that directory (dot
// segments, encoded separators, NUL and symlinks out of it are refused); content types by
// extension, a strong ETag per content, and a Content-Security-Policy that allows the site's own
// origin only.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, sep } from 'node:path';
import { ApiError } from '../errors/api-error.ts';
import { etagMatches } from './openapi.ts';
import { sendNotFoundPage } from './respond.ts';

export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
  '.yaml': 'application/yaml',
};

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  // Revalidate every time: the ETag makes that a 304 while the files are unchanged.
  'Cache-Control': 'no-cache',
};

interface CachedFile {
  mtimeMs: number;
  size: number;
  body: Buffer;
  etag: string;
}

/** The decoded path segments below the prefix, or null when a segment is not a plain file or folder name. */
export function safeSegments(rest: string): string[] | null {
  const segments: string[] = [];
  for (const raw of rest.split('/')) {
    let s: string;
    try {
      s = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (s === '' || s === '.' || s === '..' || s.includes('/') || s.includes('\\') || s.includes('\0')) return null;
    segments.push(s);
  }
  return segments;
}

export class StaticSite {
  private readonly cache = new Map<string, CachedFile>();
  private realRoot: string | undefined;

  /** `prefix` without a trailing slash (`/docs`); `dir` the folder it serves. */
  constructor(
    readonly prefix: string,
    readonly dir: string,
  ) {}

  /** Whether a request path (as received, before any trailing slash is dropped) is the site's. */
  owns(pathname: string): boolean {
    return pathname === this.prefix || pathname.startsWith(this.prefix + '/');
  }

  /** Answers a request the site owns: the file, a 304, a redirect to the folder's slash, or 404. */
  async serve(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') throw ApiError.methodNotAllowed();
    if (pathname === this.prefix) return redirect(res, this.prefix + '/');
    let rest = pathname.slice(this.prefix.length + 1);
    if (rest === '' || rest.endsWith('/')) rest += 'index.html';
    const segments = safeSegments(rest);
    if (!segments) return sendNotFoundPage(res);
    const file = await this.resolve(segments);
    if (file === 'directory') return redirect(res, pathname + '/');
    if (!file) return sendNotFoundPage(res);
    const headers: Record<string, string> = { ...SECURITY_HEADERS, ETag: file.etag };
    if (etagMatches(req.headers['if-none-match'], file.etag)) {
      res.writeHead(304, headers);
      return void res.end();
    }
    headers['Content-Type'] = CONTENT_TYPES[extname(segments[segments.length - 1]).toLowerCase()] ?? 'application/octet-stream';
    headers['Content-Length'] = String(file.body.length);
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : file.body);
  }

  /** The file below the served folder, 'directory', or undefined when absent or (through a symlink) outside. */
  private async resolve(segments: string[]): Promise<CachedFile | 'directory' | undefined> {
    try {
      this.realRoot ??= await fs.realpath(this.dir);
      const real = await fs.realpath(join(this.realRoot, ...segments));
      if (!real.startsWith(this.realRoot + sep)) return undefined;
      const stat = await fs.stat(real);
      if (stat.isDirectory()) return 'directory';
      if (!stat.isFile()) return undefined;
      const cached = this.cache.get(real);
      if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached;
      const body = await fs.readFile(real);
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
      const entry = { mtimeMs: stat.mtimeMs, size: stat.size, body, etag };
      this.cache.set(real, entry);
      return entry;
    } catch {
      // A missing file, or the site not generated yet: both are 404; the root is looked up again next time.
      this.realRoot = undefined;
      return undefined;
    }
  }
}

function redirect(res: ServerResponse, location: string): void {
  res.writeHead(301, { Location: location, 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(`Moved to ${location}\n`);
}
