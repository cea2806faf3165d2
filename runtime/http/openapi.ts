// Serves the generated OpenAPI documents (api-conventions 8): /openapi/v2 and /openapi/v3 with an
// index whose hashes are uppercase hex SHA-512 of each document (also its ETag).

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { parseAccept } from './negotiation.ts';
import { encodeOpenApiV2, type Json } from './openapi-v2-protobuf.ts';

export interface OpenApiDocument {
  body: Buffer;
  hash: string;
}

export class OpenApiDocuments {
  readonly v3 = new Map<string, OpenApiDocument>();
  v2: OpenApiDocument | undefined;

  /** Reads out/openapi: `v3/api/v1.json`, `v3/apis/<g>/<v>.json`, `v2/swagger.json`. */
  static load(dir: string): OpenApiDocuments {
    const docs = new OpenApiDocuments();
    const v3dir = join(dir, 'v3');
    if (existsSync(v3dir)) {
      const walk = (d: string): void => {
        for (const name of readdirSync(d)) {
          const p = join(d, name);
          if (statSync(p).isDirectory()) walk(p);
          else if (name.endsWith('.json')) {
            const rel = relative(v3dir, p).split(sep).join('/').replace(/\.json$/, '');
            // Only group-version documents: api/v1 and apis/<group>/<version>.
            if (rel === 'api/v1' || /^apis\/[^/]+\/[^/]+$/.test(rel)) docs.v3.set(rel, doc(readFileSync(p)));
          }
        }
      };
      walk(v3dir);
    }
    const v2 = join(dir, 'v2', 'swagger.json');
    if (existsSync(v2)) docs.v2 = doc(readFileSync(v2));
    return docs;
  }

  index(): object {
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const k of [...this.v3.keys()].sort()) paths[k] = { serverRelativeURL: `/openapi/v3/${k}?hash=${(this.v3.get(k) as OpenApiDocument).hash}` };
    return { paths };
  }
}

/** What kube-openapi answers /openapi/v2 with for each Accept subtype it knows (the `@` one is what kubectl sends). */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const V2_FORMATS: readonly { subtype: string; format: 'json' | 'protobuf'; contentType: string }[] = [
  { subtype: 'json', format: 'json', contentType: 'application/json' },
  { subtype: 'com.github.proto-openapi.spec.v2@v1.0+protobuf', format: 'protobuf', contentType: OPENAPI_V2_PROTOBUF },
  { subtype: 'com.github.proto-openapi.spec.v2.v1.0+protobuf', format: 'protobuf', contentType: OPENAPI_V2_PROTOBUF },
];

/**
 * kube-openapi's choice for /openapi/v2: Accept clauses by quality (then specificity, as goautoneg
 * sorts them), the first that matches JSON or a protobuf subtype wins; undefined means 406.
 */
export function negotiateOpenApiV2(accept: string | undefined): { format: 'json' | 'protobuf'; contentType: string } | undefined {
  const specificity = (t: string, s: string): number => (t === '*' ? 0 : s === '*' ? 1 : 2);
  const clauses = parseAccept(accept)
    .map((r, i) => ({ r, i, q: r.params.q === undefined ? 1 : Number(r.params.q) }))
    .filter((c) => c.q > 0)
    .sort((a, b) => b.q - a.q || specificity(b.r.type, b.r.subtype) - specificity(a.r.type, a.r.subtype) || a.i - b.i);
  for (const { r } of clauses) {
    for (const f of V2_FORMATS) {
      if ((r.type === 'application' || r.type === '*') && (r.subtype === f.subtype || r.subtype === '*')) return f;
    }
  }
  return undefined;
}

/** Encoded once per document version: a CRD change replaces the OpenApiDocument, so the cache follows it. */
const v2Protobuf = new WeakMap<OpenApiDocument, Buffer>();

/** The v2 document as gnostic `openapi.v2.Document` protobuf (served with the JSON document's ETag). */
export function openApiV2Protobuf(d: OpenApiDocument): Buffer {
  let pb = v2Protobuf.get(d);
  if (pb === undefined) {
    pb = encodeOpenApiV2(JSON.parse(d.body.toString('utf8')) as { [key: string]: Json });
    v2Protobuf.set(d, pb);
  }
  return pb;
}

/** If-None-Match as net/http's ServeContent reads it: `*` or any listed (weakly compared) tag. */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

function doc(raw: Buffer): OpenApiDocument {
  const body = withClientAliases(raw);
  return { body, hash: createHash('sha512').update(body).digest('hex').toUpperCase() };
}

/**
 * Real kubectl binaries find a type's operations in OpenAPI v3 by `x-kubernetes-group-version-kind`
 * only; without it they fall back to the protobuf-only /openapi/v2 and refuse to apply. So every
 * `x-cluster-group-version-kind` is also served under the x-kubernetes name. The generated
 * `x-cluster-*` content stays as it is.
 */
export function withClientAliases(raw: Buffer): Buffer {
  const text = raw.toString('utf8');
  if (!text.includes('"x-cluster-group-version-kind"')) return raw;
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      out[k] = walk(x);
      if (k === 'x-cluster-group-version-kind' && !('x-kubernetes-group-version-kind' in (v as object))) out['x-kubernetes-group-version-kind'] = out[k];
    }
    return out;
  };
  return Buffer.from(JSON.stringify(walk(JSON.parse(text))));
}
