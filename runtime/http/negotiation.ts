// Content negotiation (api-conventions 7): the first Accept clause the server can satisfy wins;
// none gives 406. JSON is the default for an empty Accept or `*/*`.
//
// Table and PartialObjectMetadata are asked for with `as=…;v=v1;g=meta.cluster.io`. Real kubectl
// binaries send `g=meta.k8s.io` and only decode a Table whose apiVersion is in that group, so the
// server answers in the group the client named (either one).

import { ApiError } from '../errors/api-error.ts';

export const META_GROUPS = ['meta.cluster.io', 'meta.k8s.io'] as const;
export const DISCOVERY_GROUPS = ['apidiscovery.cluster.io', 'apidiscovery.k8s.io'] as const;

export const SERIALIZED_TYPES = ['application/json', 'application/yaml'];
/** What a 406 of a resource endpoint lists (upstream lists the protobuf type too; only /openapi/v2 answers in protobuf here). */
export const ACCEPTED_LIST = ['application/json', 'application/yaml'];

export interface MediaRange {
  type: string;
  subtype: string;
  params: Record<string, string>;
}

const ANY: readonly MediaRange[] = [{ type: '*', subtype: '*', params: {} }];
/** Parsed Accept headers: clients send the same few on every request. Bounded; results are shared, never mutated. */
const parsedAccept = new Map<string, readonly MediaRange[]>();

export function parseAccept(header: string | undefined): readonly MediaRange[] {
  if (!header) return ANY;
  let ranges = parsedAccept.get(header);
  if (ranges === undefined) {
    ranges = parseAcceptUncached(header);
    if (parsedAccept.size >= 256) parsedAccept.clear();
    parsedAccept.set(header, ranges);
  }
  return ranges;
}

function parseAcceptUncached(header: string): MediaRange[] {
  if (header.trim() === '') return [{ type: '*', subtype: '*', params: {} }];
  const out: MediaRange[] = [];
  for (const clause of header.split(',')) {
    const parts = clause.split(';').map((p) => p.trim());
    const [full, ...rest] = parts;
    if (!full) continue;
    const slash = full.indexOf('/');
    const type = slash >= 0 ? full.slice(0, slash).toLowerCase() : full.toLowerCase();
    const subtype = slash >= 0 ? full.slice(slash + 1).toLowerCase() : '*';
    const params: Record<string, string> = {};
    for (const p of rest) {
      const eq = p.indexOf('=');
      if (eq > 0) params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim().replace(/^"|"$/g, '');
    }
    out.push({ type, subtype, params });
  }
  return out;
}

export type Encoding = 'json' | 'yaml';
export type Shape = 'object' | 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';

export interface Negotiated {
  encoding: Encoding;
  shape: Shape;
  /** The group to stamp on Table / PartialObjectMetadata output. */
  metaGroup: string;
  /** The media type to answer with. */
  contentType: string;
}

function encodingOf(r: MediaRange): Encoding | undefined {
  if (r.type === '*' && r.subtype === '*') return 'json';
  if (r.type !== 'application') return undefined;
  if (r.subtype === '*' || r.subtype === 'json') return 'json';
  if (r.subtype === 'yaml') return 'yaml';
  return undefined;
}

/**
 * For an API resource endpoint. `kind`: what the endpoint returns (an object or a list); `streaming`:
 * a watch (YAML cannot stream). Throws 406.
 */
export function negotiateResource(accept: string | undefined, kind: 'object' | 'list', streaming: boolean): Negotiated {
  for (const r of parseAccept(accept)) {
    const enc = encodingOf(r);
    if (!enc) continue;
    if (streaming && enc === 'yaml') continue;
    const as = r.params.as;
    if (!as) return { encoding: enc, shape: 'object', metaGroup: META_GROUPS[0], contentType: enc === 'json' ? 'application/json' : 'application/yaml' };
    const g = r.params.g ?? '';
    const v = r.params.v ?? '';
    if (!(META_GROUPS as readonly string[]).includes(g) || v !== 'v1') continue;
    const ctype = `${enc === 'json' ? 'application/json' : 'application/yaml'};as=${as};g=${g};v=v1`;
    if (as === 'Table') return { encoding: enc, shape: 'Table', metaGroup: g, contentType: ctype };
    if (as === 'PartialObjectMetadata' && kind === 'object' && !streaming) return { encoding: enc, shape: 'PartialObjectMetadata', metaGroup: g, contentType: ctype };
    if (as === 'PartialObjectMetadataList' && kind === 'list') return { encoding: enc, shape: 'PartialObjectMetadataList', metaGroup: g, contentType: ctype };
    if (as === 'PartialObjectMetadata' && streaming) return { encoding: enc, shape: 'PartialObjectMetadata', metaGroup: g, contentType: ctype };
  }
  throw ApiError.notAcceptable(ACCEPTED_LIST);
}

/** For discovery, version, OpenAPI and other plain JSON documents: JSON (or YAML where allowed). */
export function negotiatePlain(accept: string | undefined, allowYaml: boolean): Encoding {
  for (const r of parseAccept(accept)) {
    if (r.params.as) continue;
    const enc = encodingOf(r);
    if (enc === 'json') return 'json';
    if (enc === 'yaml' && allowYaml) return 'yaml';
  }
  throw ApiError.notAcceptable(allowYaml ? ACCEPTED_LIST : ['application/json']);
}

/** Whether the client asked for aggregated discovery (and in which group). */
export function wantsAggregatedDiscovery(accept: string | undefined): string | undefined {
  for (const r of parseAccept(accept)) {
    const enc = encodingOf(r);
    if (enc !== 'json') continue;
    if (!r.params.as) return undefined; // a plain JSON clause came first
    if (r.params.as === 'APIGroupDiscoveryList' && r.params.v === 'v2' && (DISCOVERY_GROUPS as readonly string[]).includes(r.params.g ?? '')) return r.params.g;
  }
  return undefined;
}
