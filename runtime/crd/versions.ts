// CRD versions: discovery order (document 2 section 9 rule 2, upstream's
// version.CompareKubeAwareVersionStrings), the storage version, status.storedVersions and the
// deprecation warning.
import { fieldErr, NIL_COLLECTION } from '../schema/errors.ts';
import type { FieldError } from '../schema/types.ts';
import type { CRDVersion, CustomResourceDefinition } from './types.ts';

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;
const STABILITY = { alpha: 0, beta: 1, ga: 2 } as const;

interface KubeVersion {
  major: number;
  stability: 0 | 1 | 2;
  minor: number;
}

/** Parses the platform version form: `v<major>`, `v<major>alpha<minor>`, `v<major>beta<minor>`. */
export function parseKubeVersion(v: string): KubeVersion | undefined {
  const m = KUBE_VERSION.exec(v);
  if (!m) return undefined;
  const major = Number(m[1]);
  const minor = m[3] !== undefined ? Number(m[3]) : 0;
  if (!Number.isSafeInteger(major) || !Number.isSafeInteger(minor)) return undefined;
  return { major, stability: m[2] ? STABILITY[m[2] as 'alpha' | 'beta'] : STABILITY.ga, minor };
}

/**
 * Upstream's CompareKubeAwareVersionStrings: positive when `a` has higher priority than `b`
 * (GA > beta > alpha, then major, then minor; platform-form names before others; other names in
 * reverse lexicographic comparison so that sorting by priority lists them lexicographically).
 */
export function compareKubeAwareVersionStrings(a: string, b: string): number {
  if (a === b) return 0;
  const va = parseKubeVersion(a);
  const vb = parseKubeVersion(b);
  if (!va && !vb) return b < a ? -1 : b > a ? 1 : 0;
  if (!va) return -1;
  if (!vb) return 1;
  if (va.stability !== vb.stability) return va.stability - vb.stability;
  if (va.major !== vb.major) return va.major - vb.major;
  return va.minor - vb.minor;
}

/** A comparator for Array.prototype.sort giving discovery order (highest priority first). */
export function compareVersions(a: string, b: string): number {
  return -compareKubeAwareVersionStrings(a, b);
}

/** The version names in discovery order. */
export function sortVersions(names: readonly string[]): string[] {
  return [...names].sort(compareVersions);
}

/** The served versions of a CRD in discovery order; the first is the preferred version. */
export function servedVersions(crd: CustomResourceDefinition): string[] {
  return sortVersions((crd.spec.versions ?? []).filter((v) => v.served).map((v) => v.name));
}

/** The preferred (first served in discovery order) version, if any is served. */
export function preferredVersion(crd: CustomResourceDefinition): string | undefined {
  return servedVersions(crd)[0];
}

/** The storage version's name (the CRD validator ensures exactly one). */
export function storageVersion(crd: CustomResourceDefinition): string | undefined {
  return (crd.spec.versions ?? []).find((v) => v.storage)?.name;
}

export function findVersion(crd: CustomResourceDefinition, name: string): CRDVersion | undefined {
  return (crd.spec.versions ?? []).find((v) => v.name === name);
}

/**
 * What the registry does on create and update of a CRD: the storage version is appended to
 * status.storedVersions unless already listed. Returns the new list (the input is not changed).
 */
export function withStorageVersionRecorded(storedVersions: readonly string[] | undefined, crd: CustomResourceDefinition): string[] {
  const out = [...(storedVersions ?? [])];
  const sv = storageVersion(crd);
  if (sv !== undefined && !out.includes(sv)) out.push(sv);
  return out;
}

/**
 * Upstream's PrepareForCreate / PrepareForUpdate for storedVersions: on create the list starts
 * empty (client values are dropped with the rest of status); on update the stored list is kept
 * (status changes go through /status). Either way the storage version is appended.
 * Mutates and returns `crd`.
 */
export function recordStoredVersions(crd: CustomResourceDefinition, old?: CustomResourceDefinition): CustomResourceDefinition {
  const base = old ? old.status?.storedVersions : [];
  crd.status = { ...(crd.status ?? {}), storedVersions: withStorageVersionRecorded(base, crd) };
  return crd;
}

/**
 * Upstream's ValidateCustomResourceDefinitionStoredVersions: storedVersions is not empty, contains
 * the storage version, and every listed version is still in spec.versions.
 */
export function validateStoredVersions(storedVersions: readonly string[] | undefined, versions: readonly CRDVersion[], path = 'status.storedVersions'): FieldError[] {
  const list = storedVersions ?? [];
  if (list.length === 0) return [fieldErr.invalid(path, storedVersions === undefined ? NIL_COLLECTION : list, 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const remaining = new Map<string, number>();
  list.forEach((v, i) => remaining.set(v, i));
  for (const v of versions) {
    const listed = remaining.has(v.name);
    if (v.storage && !listed) errs.push(fieldErr.invalid(path, list, `must have the storage version ${v.name}`));
    if (listed) remaining.delete(v.name);
  }
  for (const [v, i] of [...remaining].sort((a, b) => a[1] - b[1])) {
    errs.push(fieldErr.invalid(`${path}[${i}]`, v,
      `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`));
  }
  return errs;
}

/** The storedVersions checks of a CRD write (after the registry appended the storage version). */
export function validateStoredVersionsOnWrite(crd: CustomResourceDefinition): FieldError[] {
  return validateStoredVersions(crd.status?.storedVersions, crd.spec.versions ?? []);
}

/**
 * The Warning header text for a request to a deprecated version: `deprecationWarning` when set,
 * else upstream's default, which names the highest-priority served, non-deprecated version that
 * sorts after (is newer or more stable than) the deprecated one.
 */
export function deprecationWarning(crd: CustomResourceDefinition, versionName: string): string | undefined {
  const v = findVersion(crd, versionName);
  if (!v || !v.deprecated) return undefined;
  if (v.deprecationWarning !== undefined && v.deprecationWarning !== null) return v.deprecationWarning;
  return defaultDeprecationWarning(crd, versionName);
}

export function defaultDeprecationWarning(crd: CustomResourceDefinition, deprecated: string): string {
  const { group } = crd.spec;
  const kind = crd.spec.names.kind ?? '';
  const msg = `${group}/${deprecated} ${kind} is deprecated`;
  const candidates = (crd.spec.versions ?? [])
    .filter((v) => v.served && !v.deprecated && compareKubeAwareVersionStrings(deprecated, v.name) < 0)
    .map((v) => v.name)
    .sort(compareVersions);
  if (candidates.length === 0) return msg;
  return `${msg}; use ${group}/${candidates[0]} ${kind}`;
}
