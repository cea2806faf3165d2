// Serves the generated OpenAPI documents (api-conventions 8): /openapi/v2 and /openapi/v3 with an
// index whose hashes are uppercase hex SHA-512 of each document (also its ETag).

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

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
