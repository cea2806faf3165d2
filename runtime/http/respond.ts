// Writing responses: JSON (pretty on request), YAML, Status errors, Warning headers, plain text.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, isApiError } from '../errors/api-error.ts';
import type { Encoding } from './negotiation.ts';
import { parseGoBool } from './query-bool.ts';
import { toYaml } from './yaml-answer.ts';
import { jsonText } from '../json/stringify.ts';

/**
 * Upstream (negotiation isPrettyPrint) pretty-prints when a non-empty `pretty` reads true with
 * strconv.ParseBool (a value it cannot read is false), and, without a value, for curl, Wget and browsers.
 */
export function wantsPretty(req: IncomingMessage, query: URLSearchParams): boolean {
  const p = query.get('pretty');
  if (p) return parseGoBool(p) === true;
  const ua = req.headers['user-agent'] ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}

export function encode(value: unknown, encoding: Encoding, pretty: boolean): string {
  if (encoding === 'yaml') return toYaml(value);
  // jsonText: linear in depth for an object marked deep (runtime/json/stringify.ts)
  return (pretty ? JSON.stringify(value, null, 2) : jsonText(value)) + '\n';
}

/** Warning headers: `299 - "<text>"` with `"` and `\` escaped, deduplicated, one header each. */
export function setWarnings(res: ServerResponse, warnings: readonly string[]): void {
  if (!warnings.length) return;
  const seen = new Set<string>();
  const values: string[] = [];
  let budget = 4096;
  for (const w of warnings) {
    if (seen.has(w)) continue;
    seen.add(w);
    let text = w;
    if (budget <= 0) text = [...text].slice(0, 256).join('');
    budget -= text.length;
    values.push(`299 - "${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`);
  }
  res.setHeader('Warning', values);
}

export function sendValue(res: ServerResponse, code: number, value: unknown, contentType: string, encoding: Encoding, pretty: boolean, extraHeaders: Record<string, string> = {}): void {
  sendEncoded(res, code, encode(value, encoding, pretty), contentType, extraHeaders);
}

/** Bodies from this size on are encoded to UTF-8 once, rather than measured for Content-Length and then encoded again. */
const ENCODE_ONCE = 16 * 1024;

/** A body already encoded (as `encode` does). */
export function sendEncoded(res: ServerResponse, code: number, body: string, contentType: string, extraHeaders: Record<string, string> = {}): void {
  const data = body.length >= ENCODE_ONCE ? Buffer.from(body) : body;
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': typeof data === 'string' ? Buffer.byteLength(data) : data.length, ...extraHeaders });
  res.end(data);
}

export function sendError(res: ServerResponse, err: unknown, pretty = false): void {
  const e = isApiError(err) ? err : ApiError.internal(err);
  if (res.headersSent) {
    // Already answered (for example 504 after the request timeout) or streaming: end the connection.
    if (!res.writableEnded) res.destroy();
    return;
  }
  const body = encode(e.toStatus(), 'json', pretty);
  setWarnings(res, e.warnings);
  res.writeHead(e.code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), ...e.headers });
  res.end(body);
}

export function sendText(res: ServerResponse, code: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Go's NotFoundHandler for unknown paths. */
export function sendNotFoundPage(res: ServerResponse): void {
  sendText(res, 404, '404 page not found\n');
}

/**
 * An unknown path inside a built-in API group: upstream's go-restful container answers 404 and its
 * service error handler renders it as apierrors.NewGenericServerResponse(404) does.
 */
export function sendNotFoundStatus(res: ServerResponse, pretty: boolean): void {
  sendError(res, new ApiError(404, 'NotFound', 'the server could not find the requested resource', {}), pretty);
}
