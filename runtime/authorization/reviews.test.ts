import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors/api-error.ts';
import { allowAllAuthorizer, type AuthorizationAttributes, type Authorizer } from './authorizer.ts';
import { selfSubjectAccessReview, selfSubjectReview, selfSubjectRulesReview } from './reviews.ts';

const alice = { username: 'alice', uid: 'u-1', groups: ['dev', 'system:authenticated'] };

/** Records what it was asked; denies `delete`, fails `boom`, has no opinion otherwise. */
function recordingAuthorizer(seen: AuthorizationAttributes[]): Authorizer {
  return {
    authorize(a) {
      seen.push(a);
      if (a.verb === 'delete') return { decision: 'Deny', reason: 'deletes are off' };
      if (a.verb === 'boom') throw new Error('backend down');
      return { decision: 'NoOpinion', reason: '' };
    },
    rulesFor: () => ({ resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['x'] }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: [] }], incomplete: true, evaluationError: 'partial' }),
  };
}

describe('the allow-all authorizer (upstream AlwaysAllow)', () => {
  it('allows with an empty reason and lists one all-allowing rule of each kind', () => {
    expect(allowAllAuthorizer.authorize({ user: alice, verb: 'delete', resourceRequest: true, resource: 'secrets' })).toEqual({ decision: 'Allow', reason: '' });
    expect(allowAllAuthorizer.rulesFor(alice, 'default')).toEqual({
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    });
  });
});

describe('SelfSubjectReview', () => {
  it.each([
    { name: 'user with uid and groups', user: alice, userInfo: { username: 'alice', uid: 'u-1', groups: ['dev', 'system:authenticated'] } },
    { name: 'empty uid and groups are omitted', user: { username: 'bob', uid: '', groups: [] }, userInfo: { username: 'bob' } },
    { name: 'extra is kept', user: { username: 'c', extra: { scopes: ['a'] } }, userInfo: { username: 'c', extra: { scopes: ['a'] } } },
  ])('$name', ({ user, userInfo }) => {
    expect(selfSubjectReview(user, new Date('2026-01-02T03:04:05.678Z'))).toEqual({
      kind: 'SelfSubjectReview',
      metadata: { creationTimestamp: '2026-01-02T03:04:05Z' },
      status: { userInfo },
    });
  });
});

describe('SelfSubjectAccessReview', () => {
  const G = 'authorization.cluster.io';
  it.each([
    { name: 'allow-all: resource', authz: 'allowAll', spec: { resourceAttributes: { verb: 'create', resource: 'configmaps', namespace: 'd' } }, status: { allowed: true } },
    { name: 'allow-all: non-resource', authz: 'allowAll', spec: { nonResourceAttributes: { verb: 'get', path: '/healthz' } }, status: { allowed: true } },
    { name: 'deny carries denied and reason', authz: 'recording', spec: { resourceAttributes: { verb: 'delete', resource: 'secrets' } }, status: { allowed: false, denied: true, reason: 'deletes are off' } },
    { name: 'no opinion is not allowed', authz: 'recording', spec: { resourceAttributes: { verb: 'get', resource: 'secrets' } }, status: { allowed: false } },
    { name: 'an authorizer failure is an evaluationError', authz: 'recording', spec: { resourceAttributes: { verb: 'boom' } }, status: { allowed: false, evaluationError: 'backend down' } },
  ])('$name', ({ authz, spec, status }) => {
    const a = authz === 'allowAll' ? allowAllAuthorizer : recordingAuthorizer([]);
    expect(selfSubjectAccessReview(a, alice, { spec }, G)).toEqual({ kind: 'SelfSubjectAccessReview', metadata: { creationTimestamp: null }, spec, status });
  });

  it('asks the authorizer with the spec attributes and the requesting user', () => {
    const seen: AuthorizationAttributes[] = [];
    selfSubjectAccessReview(recordingAuthorizer(seen), alice, { spec: { resourceAttributes: { verb: 'get', group: 'storage.cluster.io', version: 'v1', resource: 'storageclasses', subresource: 'status', name: 'fast', namespace: '', labelSelector: { rawSelector: 'a=b' } } } }, G);
    selfSubjectAccessReview(recordingAuthorizer(seen), alice, { spec: { nonResourceAttributes: { verb: 'get', path: '/version' } } }, G);
    expect(seen).toEqual([
      { user: alice, verb: 'get', resourceRequest: true, apiGroup: 'storage.cluster.io', apiVersion: 'v1', resource: 'storageclasses', subresource: 'status', namespace: '', name: 'fast', fieldSelector: undefined, labelSelector: 'a=b' },
      { user: alice, verb: 'get', resourceRequest: false, path: '/version' },
    ]);
  });

  it.each([
    { name: 'neither attributes', body: { spec: {} }, message: 'SelfSubjectAccessReview.authorization.cluster.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified' },
    { name: 'no spec at all', body: {}, message: 'SelfSubjectAccessReview.authorization.cluster.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified' },
    { name: 'both attributes', body: { spec: { resourceAttributes: { verb: 'get' }, nonResourceAttributes: { verb: 'get', path: '/' } } }, message: 'SelfSubjectAccessReview.authorization.cluster.io "" is invalid: spec.nonResourceAttributes: Invalid value: {"verb":"get","path":"/"}: cannot be specified in combination with resourceAttributes' },
    { name: 'metadata set', body: { metadata: { name: 'x' }, spec: { resourceAttributes: { verb: 'get' } } }, message: 'SelfSubjectAccessReview.authorization.cluster.io "" is invalid: metadata: Invalid value: {"name":"x"}: must be empty' },
  ])('422 when $name', ({ body, message }) => {
    let err: unknown;
    try {
      selfSubjectAccessReview(allowAllAuthorizer, alice, body, G);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect({ code: (err as ApiError).code, reason: (err as ApiError).reason, message: (err as ApiError).message }).toEqual({ code: 422, reason: 'Invalid', message });
  });

  it('accepts metadata that carries only zero values and managedFields', () => {
    expect(selfSubjectAccessReview(allowAllAuthorizer, alice, { metadata: { creationTimestamp: null, managedFields: [{ manager: 'm' }] }, spec: { resourceAttributes: { verb: 'get' } } }, G).status).toEqual({ allowed: true });
  });
});

describe('SelfSubjectRulesReview', () => {
  it.each([
    {
      name: 'allow-all lists all verbs on all resources and URLs',
      authz: allowAllAuthorizer,
      status: { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false },
    },
    {
      name: 'empty lists are omitted per rule; incomplete and the evaluation error are kept',
      authz: recordingAuthorizer([]),
      status: { resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['x'] }], nonResourceRules: [{ verbs: ['get'] }], incomplete: true, evaluationError: 'partial' },
    },
  ])('$name', ({ authz, status }) => {
    expect(selfSubjectRulesReview(authz, alice, { spec: { namespace: 'default' } })).toEqual({ kind: 'SelfSubjectRulesReview', metadata: { creationTimestamp: null }, spec: {}, status });
  });

  it('400 without a namespace, as upstream', () => {
    expect(() => selfSubjectRulesReview(allowAllAuthorizer, alice, { spec: {} })).toThrow(expect.objectContaining({ code: 400, message: 'no namespace on request' }));
  });
});
