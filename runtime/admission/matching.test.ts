import { describe, expect, it } from 'vitest';
import {
  compileLabelSelector,
  isExemptAdmissionConfigurationResource,
  matchNamespaceSelector,
  matchObjectSelector,
  matchRules,
  namespaceLabelSource,
  ruleMatches,
  type RuleSubject,
} from './matching.ts';
import type { AdmissionAttributes, RuleWithOperations } from './types.ts';

const subj = (over: Partial<RuleSubject> & { res?: string; group?: string; version?: string } = {}): RuleSubject => ({
  operation: over.operation ?? 'CREATE',
  resource: over.resource ?? { group: over.group ?? 'storage.cluster.io', version: over.version ?? 'v1', resource: over.res ?? 'csidrivers' },
  subResource: over.subResource ?? '',
  namespace: over.namespace ?? '',
});

const rule = (over: Partial<RuleWithOperations> = {}): RuleWithOperations => ({
  operations: ['*'],
  apiGroups: ['*'],
  apiVersions: ['*'],
  resources: ['*'],
  ...over,
});

describe('rules', () => {
  const cases: { name: string; rule: RuleWithOperations; s: RuleSubject; want: boolean }[] = [
    { name: 'all wildcards', rule: rule(), s: subj(), want: true },
    { name: '* excludes subresources', rule: rule(), s: subj({ subResource: 'status' }), want: false },
    { name: '*/* includes subresources', rule: rule({ resources: ['*/*'] }), s: subj({ subResource: 'status' }), want: true },
    { name: '*/* includes resources', rule: rule({ resources: ['*/*'] }), s: subj(), want: true },
    { name: 'pods/* matches a pods subresource', rule: rule({ resources: ['pods/*'] }), s: subj({ res: 'pods', group: '', subResource: 'log' }), want: true },
    // upstream's matcher: a `*` subresource part also matches the empty subresource
    { name: 'pods/* also matches pods itself (upstream)', rule: rule({ resources: ['pods/*'] }), s: subj({ res: 'pods', group: '' }), want: true },
    { name: 'pods/* does not match other resources', rule: rule({ resources: ['pods/*'] }), s: subj({ res: 'nodes', subResource: 'log' }), want: false },
    { name: '*/scale matches any scale', rule: rule({ resources: ['*/scale'] }), s: subj({ res: 'deployments', subResource: 'scale' }), want: true },
    { name: '*/scale does not match status', rule: rule({ resources: ['*/scale'] }), s: subj({ res: 'deployments', subResource: 'status' }), want: false },
    { name: '*/scale does not match the resource', rule: rule({ resources: ['*/scale'] }), s: subj({ res: 'deployments' }), want: false },
    { name: 'exact resource', rule: rule({ resources: ['csidrivers'] }), s: subj(), want: true },
    { name: 'exact resource, other', rule: rule({ resources: ['csinodes'] }), s: subj(), want: false },
    { name: 'exact subresource', rule: rule({ resources: ['storageversionmigrations/status'] }), s: subj({ res: 'storageversionmigrations', subResource: 'status' }), want: true },
    { name: 'exact subresource vs resource', rule: rule({ resources: ['storageversionmigrations/status'] }), s: subj({ res: 'storageversionmigrations' }), want: false },
    { name: 'resource entry does not match subresource', rule: rule({ resources: ['storageversionmigrations'] }), s: subj({ res: 'storageversionmigrations', subResource: 'status' }), want: false },
    { name: 'operation listed', rule: rule({ operations: ['UPDATE', 'CREATE'] }), s: subj(), want: true },
    { name: 'operation not listed', rule: rule({ operations: ['UPDATE'] }), s: subj(), want: false },
    { name: 'operation CONNECT', rule: rule({ operations: ['CONNECT'] }), s: subj({ operation: 'CONNECT' }), want: true },
    { name: 'group exact', rule: rule({ apiGroups: ['storage.cluster.io'] }), s: subj(), want: true },
    { name: 'group other', rule: rule({ apiGroups: ['apps'] }), s: subj(), want: false },
    { name: 'core group', rule: rule({ apiGroups: [''] }), s: subj({ group: '', res: 'configmaps' }), want: true },
    { name: 'version exact', rule: rule({ apiVersions: ['v1'] }), s: subj(), want: true },
    { name: 'version other', rule: rule({ apiVersions: ['v1beta1'] }), s: subj(), want: false },
    { name: 'empty lists match nothing', rule: { operations: [], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }, s: subj(), want: false },
    { name: 'scope * cluster', rule: rule({ scope: '*' }), s: subj(), want: true },
    { name: 'scope * namespaced', rule: rule({ scope: '*' }), s: subj({ namespace: 'ns' }), want: true },
    { name: 'scope Cluster on cluster', rule: rule({ scope: 'Cluster' }), s: subj(), want: true },
    { name: 'scope Cluster on namespaced', rule: rule({ scope: 'Cluster' }), s: subj({ namespace: 'ns' }), want: false },
    { name: 'scope Namespaced on namespaced', rule: rule({ scope: 'Namespaced' }), s: subj({ namespace: 'ns' }), want: true },
    { name: 'scope Namespaced on cluster', rule: rule({ scope: 'Namespaced' }), s: subj(), want: false },
    { name: 'Namespace object is cluster-scoped even with namespace set', rule: rule({ scope: 'Cluster' }), s: subj({ group: '', res: 'namespaces', namespace: 'ns1' }), want: true },
    { name: 'Namespace object is not Namespaced', rule: rule({ scope: 'Namespaced' }), s: subj({ group: '', res: 'namespaces', namespace: 'ns1' }), want: false },
    { name: 'subresource has its parent scope', rule: rule({ scope: 'Namespaced', resources: ['*/*'] }), s: subj({ namespace: 'ns', subResource: 'status' }), want: true },
    { name: 'unknown scope matches nothing', rule: rule({ scope: 'Weird' }), s: subj(), want: false },
  ];
  for (const c of cases) it(c.name, () => expect(ruleMatches(c.rule, c.s)).toBe(c.want));
});

const attrs = (over: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
  operation: 'CREATE',
  kind: { group: 'storage.cluster.io', version: 'v1', kind: 'CSIDriver' },
  resource: { group: 'storage.cluster.io', version: 'v1', resource: 'csidrivers' },
  userInfo: { username: 'alice' },
  ...over,
});

describe('matchPolicy', () => {
  const rules = [rule({ apiGroups: ['storage.cluster.io'], apiVersions: ['v1beta1'], resources: ['csidrivers'] })];
  it('Exact does not match another version', () => {
    expect(matchRules(rules, 'Exact', attrs())).toBeUndefined();
  });
  it('Equivalent matches the same group+resource under another version and records the conversion', () => {
    const inv = matchRules(rules, 'Equivalent', attrs());
    expect(inv).toBeDefined();
    expect(inv!.convertedFrom).toEqual(attrs().resource);
    expect(inv!.equivalent).toEqual({ group: 'storage.cluster.io', version: 'v1beta1', resource: 'csidrivers' });
  });
  it('default policy is Equivalent', () => {
    expect(matchRules(rules, undefined, attrs())).toBeDefined();
  });
  it('Equivalent does not match another group', () => {
    expect(matchRules([rule({ apiGroups: ['other.cluster.io'], resources: ['csidrivers'] })], 'Equivalent', attrs())).toBeUndefined();
  });
  it('an exact match is not a conversion', () => {
    const inv = matchRules([rule({ apiVersions: ['v1'] })], 'Equivalent', attrs());
    expect(inv!.convertedFrom).toBeUndefined();
  });
  it('uses an EquivalentResourceMapper when given', () => {
    const mapper = {
      equivalentResourcesFor: () => [
        { group: 'storage.cluster.io', version: 'v1', resource: 'csidrivers' },
        { group: 'storage.cluster.io', version: 'v1beta1', resource: 'csidrivers' },
      ],
      kindFor: () => ({ group: 'storage.cluster.io', version: 'v1beta1', kind: 'CSIDriver' }),
    };
    const inv = matchRules(rules, 'Equivalent', attrs(), mapper);
    expect(inv!.resource.version).toBe('v1beta1');
    expect(inv!.kind.version).toBe('v1beta1');
  });
});

describe('label selectors', () => {
  const L = { app: 'web', tier: 'front' };
  const cases: { name: string; sel: Parameters<typeof compileLabelSelector>[0]; want: boolean }[] = [
    { name: 'undefined matches all', sel: undefined, want: true },
    { name: 'empty matches all', sel: {}, want: true },
    { name: 'matchLabels hit', sel: { matchLabels: { app: 'web' } }, want: true },
    { name: 'matchLabels miss', sel: { matchLabels: { app: 'db' } }, want: false },
    { name: 'In hit', sel: { matchExpressions: [{ key: 'app', operator: 'In', values: ['db', 'web'] }] }, want: true },
    { name: 'In miss', sel: { matchExpressions: [{ key: 'app', operator: 'In', values: ['db'] }] }, want: false },
    { name: 'In absent key', sel: { matchExpressions: [{ key: 'x', operator: 'In', values: ['db'] }] }, want: false },
    { name: 'NotIn hit', sel: { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['db'] }] }, want: true },
    { name: 'NotIn miss', sel: { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['web'] }] }, want: false },
    { name: 'NotIn absent key matches', sel: { matchExpressions: [{ key: 'x', operator: 'NotIn', values: ['web'] }] }, want: true },
    { name: 'Exists', sel: { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, want: true },
    { name: 'Exists miss', sel: { matchExpressions: [{ key: 'x', operator: 'Exists' }] }, want: false },
    { name: 'DoesNotExist', sel: { matchExpressions: [{ key: 'x', operator: 'DoesNotExist' }] }, want: true },
    { name: 'DoesNotExist miss', sel: { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] }, want: false },
    { name: 'all requirements ANDed', sel: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['back'] }] }, want: false },
  ];
  for (const c of cases) it(c.name, () => expect(compileLabelSelector(c.sel).matches(L)).toBe(c.want));
  it('rejects invalid selectors', () => {
    expect(() => compileLabelSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] })).toThrow(/can't be empty/);
    expect(() => compileLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] })).toThrow(/must be empty/);
    expect(() => compileLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Near' }] })).toThrow(/not a valid label selector operator/);
  });
});

describe('namespaceSelector', () => {
  const sel = compileLabelSelector({ matchLabels: { env: 'prod' } });
  const nsLabels: Record<string, Record<string, string>> = { prod1: { env: 'prod' }, dev1: { env: 'dev' } };
  const run = (a: AdmissionAttributes): boolean => {
    const src = namespaceLabelSource(a);
    return matchNamespaceSelector(sel, src, src.kind === 'lookup' ? nsLabels[src.namespace] : undefined);
  };
  const pvc = (ns: string): AdmissionAttributes =>
    attrs({ namespace: ns, resource: { group: '', version: 'v1', resource: 'persistentvolumeclaims' }, kind: { group: '', version: 'v1', kind: 'PersistentVolumeClaim' } });
  it('namespaced object in a labelled namespace matches', () => expect(run(pvc('prod1'))).toBe(true));
  it('namespaced object in another namespace does not', () => expect(run(pvc('dev1'))).toBe(false));
  it('cluster-scoped resources are never skipped', () => expect(run(attrs())).toBe(true));
  const nsObj = (op: AdmissionAttributes['operation'], labels: Record<string, string>, name = 'newns'): AdmissionAttributes =>
    attrs({
      operation: op,
      name,
      namespace: name,
      resource: { group: '', version: 'v1', resource: 'namespaces' },
      kind: { group: '', version: 'v1', kind: 'Namespace' },
      object: op === 'DELETE' ? null : { metadata: { name, labels } },
    });
  it('a Namespace object on CREATE matches on its own labels', () => {
    expect(run(nsObj('CREATE', { env: 'prod' }))).toBe(true);
    expect(run(nsObj('CREATE', { env: 'dev' }))).toBe(false);
  });
  it('a Namespace object on UPDATE uses the new labels', () => expect(run(nsObj('UPDATE', { env: 'prod' }, 'dev1'))).toBe(true));
  it('a Namespace DELETE looks up the stored namespace', () => {
    expect(run(nsObj('DELETE', {}, 'prod1'))).toBe(true);
    expect(run(nsObj('DELETE', {}, 'dev1'))).toBe(false);
  });
  it('the empty selector matches everything', () => {
    const src = namespaceLabelSource(pvc('dev1'));
    expect(matchNamespaceSelector(compileLabelSelector({}), src, undefined)).toBe(true);
  });
});

describe('objectSelector', () => {
  const sel = compileLabelSelector({ matchExpressions: [{ key: 'team', operator: 'In', values: ['a'] }] });
  const o = (labels?: Record<string, string>): unknown => ({ metadata: { name: 'x', ...(labels ? { labels } : {}) } });
  const cases: { name: string; object?: unknown; oldObject?: unknown; want: boolean }[] = [
    { name: 'new object matches', object: o({ team: 'a' }), want: true },
    { name: 'new object does not match', object: o({ team: 'b' }), want: false },
    { name: 'old object matches (update removing the label)', object: o({ team: 'b' }), oldObject: o({ team: 'a' }), want: true },
    { name: 'old object only (delete)', object: null, oldObject: o({ team: 'a' }), want: true },
    { name: 'neither', object: o(), oldObject: o(), want: false },
    { name: 'absent objects never match', object: null, oldObject: null, want: false },
    { name: 'an object that cannot have labels never matches', object: { kind: 'DeleteOptions' }, want: false },
  ];
  for (const c of cases) it(c.name, () => expect(matchObjectSelector(sel, { object: c.object, oldObject: c.oldObject })).toBe(c.want));
  it('a NotIn selector still needs an object', () => {
    const notIn = compileLabelSelector({ matchExpressions: [{ key: 'team', operator: 'NotIn', values: ['a'] }] });
    expect(matchObjectSelector(notIn, { object: null, oldObject: null })).toBe(false);
    expect(matchObjectSelector(notIn, { object: o() })).toBe(true);
  });
  it('the empty selector matches even absent objects', () => {
    expect(matchObjectSelector(compileLabelSelector({}), { object: null })).toBe(true);
  });
});

describe('exempt resources', () => {
  it('ValidatingWebhookConfiguration and MutatingWebhookConfiguration requests are never sent', () => {
    for (const kind of ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']) {
      expect(
        isExemptAdmissionConfigurationResource({
          kind: { group: 'admissionregistration.cluster.io', version: 'v1', kind },
          resource: { group: 'admissionregistration.cluster.io', version: 'v1', resource: `${kind.toLowerCase()}s` },
        }),
      ).toBe(true);
    }
    expect(isExemptAdmissionConfigurationResource(attrs())).toBe(false);
  });
});
