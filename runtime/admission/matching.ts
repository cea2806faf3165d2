// Pure matching of a request against one webhook: rules (operations, groups, versions,
// resources/subresources with wildcards, scope), matchPolicy, namespaceSelector, objectSelector,
// and the label-selector evaluator. No I/O here: namespace labels are passed in by the caller.

import {
  ADMISSION_REGISTRATION_GROUP,
  type AdmissionAttributes,
  type GroupVersionKind,
  type GroupVersionResource,
  type LabelSelector,
  type RuleWithOperations,
} from './types.ts';

// ---------------------------------------------------------------------------------------------
// Label selectors

export type Labels = Readonly<Record<string, string>>;

export interface CompiledSelector {
  /** True for `{}` (and an absent selector): matches everything, even an absent object. */
  readonly empty: boolean;
  matches(labels: Labels): boolean;
}

const MATCH_ALL: CompiledSelector = { empty: true, matches: () => true };

/** Compiles a LabelSelector; throws an Error with upstream-like text for an invalid one. */
export function compileLabelSelector(sel: LabelSelector | null | undefined): CompiledSelector {
  if (sel === null || sel === undefined) return MATCH_ALL;
  const tests: ((l: Labels) => boolean)[] = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) {
    tests.push((l) => Object.prototype.hasOwnProperty.call(l, k) && l[k] === v);
  }
  for (const req of sel.matchExpressions ?? []) {
    const key = req.key;
    const values = req.values ?? [];
    const has = (l: Labels): boolean => Object.prototype.hasOwnProperty.call(l, key);
    switch (req.operator) {
      case 'In': {
        if (values.length === 0) throw new Error(`values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty`);
        const set = new Set(values);
        tests.push((l) => has(l) && set.has(l[key]));
        break;
      }
      case 'NotIn': {
        if (values.length === 0) throw new Error(`values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty`);
        const set = new Set(values);
        tests.push((l) => !has(l) || !set.has(l[key]));
        break;
      }
      case 'Exists':
        if (values.length > 0) throw new Error(`values: Invalid value: ${JSON.stringify(values)}: values set must be empty for exists and does not exist`);
        tests.push(has);
        break;
      case 'DoesNotExist':
        if (values.length > 0) throw new Error(`values: Invalid value: ${JSON.stringify(values)}: values set must be empty for exists and does not exist`);
        tests.push((l) => !has(l));
        break;
      default:
        throw new Error(`${JSON.stringify(req.operator)} is not a valid label selector operator`);
    }
  }
  if (tests.length === 0) return MATCH_ALL;
  return { empty: false, matches: (l) => tests.every((t) => t(l)) };
}

/** Labels of a JSON object, or undefined when it is absent or cannot have labels. */
export function objectLabels(obj: unknown): Labels | undefined {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return undefined;
  const meta = (obj as { metadata?: unknown }).metadata;
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return undefined;
  const labels = (meta as { labels?: unknown }).labels;
  if (labels === undefined || labels === null) return {};
  if (typeof labels !== 'object' || Array.isArray(labels)) return undefined;
  return labels as Labels;
}

// ---------------------------------------------------------------------------------------------
// Rules

/** What the rules see of a request (resource may be an equivalent of the requested one). */
export interface RuleSubject {
  operation: string;
  resource: GroupVersionResource;
  subResource: string;
  namespace: string;
}

function exactOrWildcard(items: readonly string[] | undefined, requested: string): boolean {
  for (const item of items ?? []) if (item === '*' || item === requested) return true;
  return false;
}

/** The core Namespace resource (cluster-scoped; its own namespace attribute is its name). */
export function isNamespaceResource(r: { group: string; resource: string }): boolean {
  return r.group === '' && r.resource === 'namespaces';
}

function scopeMatches(scope: string | undefined, s: RuleSubject): boolean {
  if (scope === undefined || scope === '' || scope === '*') return true;
  const ns = isNamespaceResource(s.resource);
  switch (scope) {
    case 'Namespaced':
      return !ns && s.namespace !== '';
    case 'Cluster':
      return ns || s.namespace === '';
    default:
      return false;
  }
}

function resourceMatches(resources: readonly string[] | undefined, resource: string, sub: string): boolean {
  for (const entry of resources ?? []) {
    const slash = entry.indexOf('/');
    const res = slash < 0 ? entry : entry.slice(0, slash);
    const rsub = slash < 0 ? '' : entry.slice(slash + 1);
    if ((res === '*' || res === resource) && (rsub === '*' || rsub === sub)) return true;
  }
  return false;
}

export interface RuleMatchOptions {
  /** Skip the version test (equivalence by group + resource). */
  anyVersion?: boolean;
}

/** One rule against one request (upstream predicates/rules Matcher). */
export function ruleMatches(rule: RuleWithOperations, s: RuleSubject, opts: RuleMatchOptions = {}): boolean {
  return (
    scopeMatches(rule.scope, s) &&
    exactOrWildcard(rule.operations, s.operation) &&
    exactOrWildcard(rule.apiGroups, s.resource.group) &&
    (opts.anyVersion === true || exactOrWildcard(rule.apiVersions, s.resource.version)) &&
    resourceMatches(rule.resources, s.resource.resource, s.subResource)
  );
}

/**
 * Maps a resource to the same resource served under other groups/versions (upstream's
 * EquivalentResourceMapper). Optional: without it, equivalence is by group + resource.
 */
export interface EquivalentResourceMapper {
  equivalentResourcesFor(resource: GroupVersionResource, subResource: string): GroupVersionResource[];
  kindFor(resource: GroupVersionResource, subResource: string): GroupVersionKind | undefined;
  /**
   * The objects at the version of `to`, an equivalent of their resource (the webhook was matched
   * through it and is sent the objects at the version it registered for). Absent: sent unconverted.
   */
  convert?(objects: readonly unknown[], to: GroupVersionResource): Promise<unknown[]>;
}

/** The resource and kind a webhook is invoked for. */
export interface Invocation {
  resource: GroupVersionResource;
  kind: GroupVersionKind;
  subResource: string;
  /**
   * Set when only an equivalent resource matched (matchPolicy Equivalent). With a mapper,
   * `resource`/`kind` are the equivalent's and the objects are converted to it before sending;
   * without one (equivalence by group + resource), they stay those of the request.
   */
  convertedFrom?: GroupVersionResource;
  equivalent?: GroupVersionResource;
}

/** Matches the rules of a webhook, honouring matchPolicy; undefined when no rule matches. */
export function matchRules(
  rules: readonly RuleWithOperations[] | undefined,
  matchPolicy: string | undefined,
  attrs: AdmissionAttributes,
  mapper?: EquivalentResourceMapper,
): Invocation | undefined {
  const sub = attrs.subResource ?? '';
  const subject: RuleSubject = {
    operation: attrs.operation,
    resource: attrs.resource,
    subResource: sub,
    namespace: attrs.namespace ?? '',
  };
  for (const r of rules ?? []) {
    if (ruleMatches(r, subject)) return { resource: attrs.resource, kind: attrs.kind, subResource: sub };
  }
  if ((matchPolicy ?? 'Equivalent') !== 'Equivalent') return undefined;
  if (mapper) {
    const equivalents = mapper.equivalentResourcesFor(attrs.resource, sub);
    for (const r of rules ?? []) {
      for (const eq of equivalents) {
        if (sameGVR(eq, attrs.resource)) continue;
        if (!ruleMatches(r, { ...subject, resource: eq })) continue;
        const kind = mapper.kindFor(eq, sub);
        if (!kind) throw new Error(`unable to convert to ${gvrString(eq)}: unknown kind`);
        return { resource: eq, kind, subResource: sub, convertedFrom: attrs.resource, equivalent: eq };
      }
    }
    return undefined;
  }
  // Default equivalence: same group and resource under another version.
  for (const r of rules ?? []) {
    if (!ruleMatches(r, subject, { anyVersion: true })) continue;
    const version = (r.apiVersions ?? []).find((v) => v !== '*') ?? attrs.resource.version;
    return {
      resource: attrs.resource,
      kind: attrs.kind,
      subResource: sub,
      convertedFrom: attrs.resource,
      equivalent: { ...attrs.resource, version },
    };
  }
  return undefined;
}

function sameGVR(a: GroupVersionResource, b: GroupVersionResource): boolean {
  return a.group === b.group && a.version === b.version && a.resource === b.resource;
}

export function gvrString(r: GroupVersionResource): string {
  return `${r.group}/${r.version}, Resource=${r.resource}`;
}

// ---------------------------------------------------------------------------------------------
// Exempt resources

const EXEMPT_KINDS = new Set([
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionPolicyBinding',
]);
const EXEMPT_RESOURCES = new Set([...EXEMPT_KINDS].map((k) => `${k.toLowerCase()}s`));

/** Requests about admission configurations are never sent to webhooks (no lock-out). */
export function isExemptAdmissionConfigurationResource(attrs: Pick<AdmissionAttributes, 'kind' | 'resource'>): boolean {
  if (attrs.kind.group === ADMISSION_REGISTRATION_GROUP && EXEMPT_KINDS.has(attrs.kind.kind)) return true;
  return attrs.resource.group === ADMISSION_REGISTRATION_GROUP && EXEMPT_RESOURCES.has(attrs.resource.resource);
}

// ---------------------------------------------------------------------------------------------
// Selectors against a request

/**
 * Which namespace's labels a namespaceSelector is evaluated against:
 * - `skip`: a cluster-scoped request that is not about a Namespace (never skipped: matches);
 * - `object`: a Namespace CREATE/UPDATE (no subresource): the object's own labels;
 * - `lookup`: the labels of the named namespace (for a Namespace object: itself).
 */
export type NamespaceLabelSource =
  | { kind: 'skip' }
  | { kind: 'object'; labels: Labels }
  | { kind: 'lookup'; namespace: string };

export function namespaceLabelSource(attrs: AdmissionAttributes): NamespaceLabelSource {
  const nsObject = isNamespaceResource(attrs.resource);
  const namespace = attrs.namespace || (nsObject ? (attrs.name ?? '') : '');
  if (namespace === '' && !nsObject) return { kind: 'skip' };
  if (nsObject && !attrs.subResource && (attrs.operation === 'CREATE' || attrs.operation === 'UPDATE')) {
    return { kind: 'object', labels: objectLabels(attrs.object) ?? {} };
  }
  return { kind: 'lookup', namespace };
}

/** namespaceSelector with the labels already resolved (undefined labels: namespace not found). */
export function matchNamespaceSelector(selector: CompiledSelector, source: NamespaceLabelSource, labels: Labels | undefined): boolean {
  if (source.kind === 'skip' || selector.empty) return true;
  if (source.kind === 'object') return selector.matches(source.labels);
  return selector.matches(labels ?? {});
}

/** objectSelector: old or new object's labels; an absent object (or one without labels) never matches. */
export function matchObjectSelector(selector: CompiledSelector, attrs: Pick<AdmissionAttributes, 'object' | 'oldObject'>): boolean {
  if (selector.empty) return true;
  const n = objectLabels(attrs.object);
  if (n !== undefined && selector.matches(n)) return true;
  const o = objectLabels(attrs.oldObject);
  return o !== undefined && selector.matches(o);
}
