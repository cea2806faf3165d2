// Discovery documents (api-conventions 8), built from the route tables: what is served is exactly
// what is advertised. Legacy (/api, /apis, /apis/<g>, /api/v1, /apis/<g>/<v>) and aggregated
// (APIGroupDiscoveryList) forms.

import { createHash } from 'node:crypto';
import { VERB_OF_ACTION } from '../api/operation.ts';
import type { ResourceDescriptor } from '../api/resource-descriptor.ts';
import type { RouteTable } from './route-types.ts';

export interface ServedResource {
  descriptor: ResourceDescriptor;
  verbs: string[];
  /** `responseKind`: when the subresource serves another kind (a custom resource's /scale: autoscaling/v1 Scale). */
  subresources: { name: string; verbs: string[]; responseKind?: { group: string; version: string; kind: string } }[];
  /** The version objects are stored at, when not the served one (custom resources). */
  storageVersion?: string;
}

export interface GroupVersion {
  group: string;
  version: string;
  resources: ServedResource[];
}

/** upstream's StorageVersionHash: base64 of the first 8 bytes of sha256("group/version/kind"). */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

/** Kubernetes version priority: GA > beta > alpha, then by number. */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string): [number, number, number, string] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [3, 0, 0, v];
    const stage = m[2] === 'alpha' ? 2 : m[2] === 'beta' ? 1 : 0;
    return [stage, -Number(m[1]), -(m[3] ? Number(m[3]) : 0), v];
  };
  const pa = parse(a);
  const pb = parse(b);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return (pa[i] as number) - (pb[i] as number);
  return pa[3] < pb[3] ? -1 : pa[3] > pb[3] ? 1 : 0;
}

export class Discovery {
  readonly groupVersions: GroupVersion[] = [];

  /** `extra`: resources served besides the route tables (custom resources of established CRDs). */
  constructor(tables: readonly RouteTable<unknown>[], extra: readonly GroupVersion[] = []) {
    const byGv = new Map<string, GroupVersion>();
    for (const t of tables) {
      const d = t.resource;
      const verbs = new Set<string>();
      const sub = new Map<string, Set<string>>();
      for (const r of t.routes) {
        const verb = VERB_OF_ACTION[r.action];
        if (r.subresource) {
          if (!sub.has(r.subresource)) sub.set(r.subresource, new Set());
          (sub.get(r.subresource) as Set<string>).add(verb);
        } else verbs.add(verb);
      }
      if (verbs.size === 0) continue;
      const key = `${d.group}/${d.version}`;
      let gv = byGv.get(key);
      if (!gv) {
        gv = { group: d.group, version: d.version, resources: [] };
        byGv.set(key, gv);
      }
      gv.resources.push({
        descriptor: d,
        verbs: [...verbs].sort(),
        // by name, as upstream lists them (namespaces/finalize before namespaces/status)
        subresources: [...sub.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, v]) => ({ name, verbs: [...v].sort() })),
      });
    }
    for (const x of extra) {
      const key = `${x.group}/${x.version}`;
      let gv = byGv.get(key);
      if (!gv) {
        gv = { group: x.group, version: x.version, resources: [] };
        byGv.set(key, gv);
      }
      gv.resources.push(...x.resources);
    }
    for (const gv of byGv.values()) {
      gv.resources.sort((a, b) => (a.descriptor.plural < b.descriptor.plural ? -1 : 1));
      if (gv.resources.length) this.groupVersions.push(gv);
    }
  }

  /** Named groups (not core), each with its versions in priority order. */
  groups(): { name: string; versions: string[] }[] {
    const m = new Map<string, string[]>();
    for (const gv of this.groupVersions) {
      if (gv.group === '') continue;
      if (!m.has(gv.group)) m.set(gv.group, []);
      (m.get(gv.group) as string[]).push(gv.version);
    }
    return [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([name, versions]) => ({ name, versions: versions.sort(compareVersions) }));
  }

  find(group: string, version: string): GroupVersion | undefined {
    return this.groupVersions.find((g) => g.group === group && g.version === version);
  }

  apiVersions(serverAddress: string): object {
    return {
      kind: 'APIVersions',
      versions: this.groupVersions.some((g) => g.group === '') ? ['v1'] : [],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
    };
  }

  private apiGroup(g: { name: string; versions: string[] }): object {
    const versions = g.versions.map((v) => ({ groupVersion: `${g.name}/${v}`, version: v }));
    return { name: g.name, versions, preferredVersion: versions[0] };
  }

  apiGroupList(): object {
    return { kind: 'APIGroupList', apiVersion: 'v1', groups: this.groups().map((g) => this.apiGroup(g)) };
  }

  apiGroup1(name: string): object | undefined {
    const g = this.groups().find((x) => x.name === name);
    if (!g) return undefined;
    return { kind: 'APIGroup', apiVersion: 'v1', ...this.apiGroup(g) };
  }

  apiResourceList(group: string, version: string): object | undefined {
    const gv = this.find(group, version);
    if (!gv) return undefined;
    const resources: object[] = [];
    for (const r of gv.resources) {
      const d = r.descriptor;
      const entry: Record<string, unknown> = {
        name: d.plural,
        singularName: d.singular,
        namespaced: d.namespaced,
        kind: d.kind,
        verbs: r.verbs,
      };
      if (d.shortNames.length) entry.shortNames = [...d.shortNames];
      if (d.categories.length) entry.categories = [...d.categories];
      entry.storageVersionHash = storageVersionHash(d.group, r.storageVersion ?? d.version, d.kind);
      resources.push(entry);
      for (const s of r.subresources) {
        const sub: Record<string, unknown> = { name: `${d.plural}/${s.name}`, singularName: '', namespaced: d.namespaced };
        if (s.responseKind) Object.assign(sub, { group: s.responseKind.group, version: s.responseKind.version });
        resources.push(Object.assign(sub, { kind: s.responseKind?.kind ?? d.kind, verbs: s.verbs }));
      }
    }
    const out: Record<string, unknown> = { kind: 'APIResourceList' };
    if (group !== '') out.apiVersion = 'v1';
    out.groupVersion = group ? `${group}/${version}` : version;
    out.resources = resources;
    return out;
  }

  /** Aggregated discovery: `/api` holds only the core group, `/apis` every named group. */
  aggregated(core: boolean, discoveryGroup: string): object {
    const items: object[] = [];
    const groups = core ? [{ name: '', versions: ['v1'] }] : this.groups();
    for (const g of groups) {
      const versions: object[] = [];
      for (const v of g.versions) {
        const gv = this.find(g.name, v);
        if (!gv) continue;
        versions.push({
          version: v,
          resources: gv.resources.map((r) => {
            const d = r.descriptor;
            const res: Record<string, unknown> = {
              resource: d.plural,
              responseKind: { group: d.group, version: d.version, kind: d.kind },
              scope: d.namespaced ? 'Namespaced' : 'Cluster',
              singularResource: d.singular,
              verbs: r.verbs,
            };
            if (d.shortNames.length) res.shortNames = [...d.shortNames];
            if (d.categories.length) res.categories = [...d.categories];
            if (r.subresources.length) {
              res.subresources = r.subresources.map((s) => ({
                subresource: s.name,
                responseKind: s.responseKind ?? { group: d.group, version: d.version, kind: d.kind },
                verbs: s.verbs,
              }));
            }
            return res;
          }),
          freshness: 'Current',
        });
      }
      if (versions.length) items.push({ metadata: { name: g.name, creationTimestamp: null }, versions });
    }
    return { kind: 'APIGroupDiscoveryList', apiVersion: `${discoveryGroup}/v2`, metadata: {}, items };
  }
}

export function aggregatedContentType(discoveryGroup: string): string {
  return `application/json;g=${discoveryGroup};v=v2;as=APIGroupDiscoveryList`;
}
