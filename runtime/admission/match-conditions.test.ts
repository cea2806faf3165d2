import { describe, expect, it } from 'vitest';
import { authorizerUnavailable, compileMatchConditions, compileStats, evaluateMatchConditions } from './match-conditions.ts';
import type { AdmissionAttributes, AuthorizationAttributes, Authorizer } from './types.ts';
import { allowAllAuthorizer } from './types.ts';

const attrs: AdmissionAttributes = {
  operation: 'UPDATE',
  kind: { group: 'storage.cluster.io', version: 'v1', kind: 'CSIDriver' },
  resource: { group: 'storage.cluster.io', version: 'v1', resource: 'csidrivers' },
  name: 'drv',
  object: { metadata: { name: 'drv', labels: { a: 'b' } }, spec: { attachRequired: true, n: 3 } },
  oldObject: { metadata: { name: 'drv' }, spec: { attachRequired: false } },
  userInfo: { username: 'alice', uid: 'u1', groups: ['system:authenticated', 'devs'] },
  dryRun: false,
};

const run = (exprs: string[], policy?: string, authorizer: Authorizer = allowAllAuthorizer, a: AdmissionAttributes = attrs) =>
  evaluateMatchConditions(
    compileMatchConditions(exprs.map((expression, i) => ({ name: `c${i}`, expression }))),
    { attrs: a, authorizer },
    policy,
  );

describe('match conditions', () => {
  it('the authorizer library is installed', () => expect(authorizerUnavailable).toBeUndefined());
  it('no conditions: match', () => expect(run([])).toEqual({ matches: true }));
  it('all TRUE: match', () =>
    expect(run(["object.spec.attachRequired == true", "oldObject.spec.attachRequired == false", "request.operation == 'UPDATE'"])).toEqual({ matches: true }));
  it('any FALSE: skip (names the condition)', () =>
    expect(run(['true', "request.userInfo.username == 'bob'"])).toEqual({ matches: false, failedCondition: 'c1' }));
  it('FALSE wins over an error, under Fail', () => expect(run(['object.nope == 1', 'false'], 'Fail')).toEqual({ matches: false, failedCondition: 'c1' }));
  it('error with none FALSE, Fail: error', () => {
    const r = run(['true', 'object.spec.missing == 1'], 'Fail');
    expect(r).toEqual({ matches: false, error: "expression 'object.spec.missing == 1' resulted in error: No such key: missing" });
  });
  it('error with none FALSE, default policy is Fail', () => expect('error' in run(['object.spec.missing == 1'])).toBe(true));
  it('error with none FALSE, Ignore: skip without error', () => expect(run(['true', 'object.spec.missing == 1'], 'Ignore')).toEqual({ matches: false }));
  it('several errors aggregate', () => {
    const r = run(['object.x == 1', 'object.y == 1'], 'Fail');
    expect('error' in r && r.error.startsWith('[')).toBe(true);
  });
  // upstream's CompileCELExpression wants the output type to be exactly bool (IsExactType): dyn is not.
  it.each([
    ['object.spec.n', 'must evaluate to bool but got dyn'],
    ["object.metadata.labels['a']", 'must evaluate to bool but got dyn'],
    ['oldObject', 'must evaluate to bool but got dyn'],
    ['object.spec.attachRequired == true', undefined],
    ['has(object.spec.n)', undefined],
  ])('%s: compile error %s', (expression, want) => {
    expect(compileMatchConditions([{ name: 'x', expression }]).conditions[0].compileError).toBe(want);
  });
  it('a compile error (persisted configuration) is an error under Fail', () => {
    const r = run(['object.spec.(('], 'Fail');
    expect('error' in r && r.error.startsWith('compilation error:')).toBe(true);
    expect(run(['object.spec.(('], 'Ignore')).toEqual({ matches: false });
  });
  it('non-bool types are rejected at compile time', () => {
    expect(compileMatchConditions([{ name: 'x', expression: "'s'" }]).conditions[0].compileError).toBe('must evaluate to bool but got string');
  });
  // upstream declares `request` as kubernetes.AdmissionRequest and `namespaceObject` as kubernetes.Namespace
  it.each([
    ['request.foo == 1', true],
    ['request.uid == ""', true],
    ['request.userInfo.username == 1', true],
    ["request.kind.plural == 'x'", true],
    ["request.userInfo.extra['k'] == ['v']", false],
    ["namespaceObject.metadata.labels['team'] == 'a'", false],
    ['namespaceObject.spec.nope == 1', true],
  ])('%s: fails to compile %s', (expression, fails) => {
    expect(compileMatchConditions([{ name: 'x', expression }]).conditions[0].compileError !== undefined).toBe(fails);
  });
  // upstream's CreateAdmissionRequest sets DryRun to a pointer: present (false) when not a dry run
  it('request.dryRun is false, not absent, outside a dry run', () => {
    expect(run(['request.dryRun == false', 'has(request.dryRun)'], 'Fail')).toEqual({ matches: true });
    expect(run(['request.dryRun'], 'Fail', allowAllAuthorizer, { ...attrs, dryRun: true })).toEqual({ matches: true });
  });
  it('namespaceObject is unset for a webhook (upstream passes none): reading it is an error', () => {
    expect('error' in run(["namespaceObject.metadata.name == 'x'"], 'Fail')).toBe(true);
    expect(run(["namespaceObject.metadata.name == 'x'"], 'Ignore')).toEqual({ matches: false });
  });
  it('oldObject is null on CREATE, object is null on DELETE', () => {
    expect(run(['oldObject == null', 'object != null'], 'Fail', allowAllAuthorizer, { ...attrs, operation: 'CREATE', oldObject: null })).toEqual({ matches: true });
    expect(run(['object == null'], 'Fail', allowAllAuthorizer, { ...attrs, operation: 'DELETE', object: null })).toEqual({ matches: true });
  });
  it('request carries the admission request fields', () => {
    expect(
      run([
        "request.kind.kind == 'CSIDriver'",
        "request.resource.resource == 'csidrivers'",
        "request.requestResource.group == 'storage.cluster.io'",
        "request.name == 'drv'",
        "'devs' in request.userInfo.groups",
        "request.userInfo.uid == 'u1'",
        '!has(request.namespace)',
      ]),
    ).toEqual({ matches: true });
  });
  it('compiles once per call of compileMatchConditions', () => {
    const before = compileStats.expressions;
    const c = compileMatchConditions([{ name: 'a', expression: 'true' }]);
    for (let i = 0; i < 50; i++) evaluateMatchConditions(c, { attrs }, 'Fail');
    expect(compileStats.expressions - before).toBe(1);
  });
});

describe('authorizer in match conditions', () => {
  const seen: AuthorizationAttributes[] = [];
  const authz: Authorizer = {
    authorize(a) {
      seen.push(a);
      if (a.verb === 'boom') return { decision: 'NoOpinion', reason: '', error: 'backend down' };
      if (a.user.username.startsWith('system:serviceaccount:')) return { decision: 'Deny', reason: 'sa denied' };
      return a.verb === 'get' || a.path === '/healthz' ? { decision: 'Allow', reason: 'ok' } : { decision: 'NoOpinion', reason: 'no rule' };
    },
    rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: true }),
  };
  it('group/resource/namespace/name/subresource checks', () => {
    seen.length = 0;
    expect(
      run(["authorizer.group('apps').resource('deployments').subresource('scale').namespace('ns').name('d').check('get').allowed()"], 'Fail', authz),
    ).toEqual({ matches: true });
    expect(seen[0]).toMatchObject({
      verb: 'get',
      resourceRequest: true,
      apiGroup: 'apps',
      resource: 'deployments',
      subresource: 'scale',
      namespace: 'ns',
      name: 'd',
      user: { username: 'alice' },
    });
  });
  it('denied check, reason', () => {
    expect(run(["!authorizer.group('').resource('pods').check('delete').allowed()", "authorizer.group('').resource('pods').check('delete').reason() == 'no rule'"], 'Fail', authz)).toEqual({ matches: true });
  });
  it('path checks', () => expect(run(["authorizer.path('/healthz').check('get').allowed()"], 'Fail', authz)).toEqual({ matches: true }));
  it('serviceAccount switches the user', () => {
    seen.length = 0;
    expect(run(["!authorizer.serviceAccount('kube-system', 'ctrl').group('').resource('pods').check('get').allowed()"], 'Fail', authz)).toEqual({ matches: true });
    expect(seen[0].user).toEqual({ username: 'system:serviceaccount:kube-system:ctrl', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system'] });
  });
  it('errored / error', () =>
    expect(run(["authorizer.group('').resource('pods').check('boom').errored()", "authorizer.group('').resource('pods').check('boom').error() == 'backend down'"], 'Fail', authz)).toEqual({ matches: true }));
  it('authorizer.requestResource is the request resource', () => {
    seen.length = 0;
    expect(run(["authorizer.requestResource.check('get').allowed()"], 'Fail', authz)).toEqual({ matches: true });
    expect(seen[0]).toMatchObject({ apiGroup: 'storage.cluster.io', apiVersion: 'v1', resource: 'csidrivers', name: 'drv', namespace: '', subresource: '' });
  });
  it('private state is not reachable from CEL', () => {
    expect('error' in run(['authorizer.user == null'], 'Fail', authz)).toBe(true);
  });
  it('allowAllAuthorizer allows', () => expect(run(["authorizer.group('x').resource('y').check('delete').allowed()"])).toEqual({ matches: true }));
  it('unknown authorizer methods fail to compile', () => {
    expect(compileMatchConditions([{ name: 'x', expression: "authorizer.nope('x')" }]).conditions[0].compileError).toBeDefined();
  });
});
