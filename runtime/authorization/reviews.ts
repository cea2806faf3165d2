// The three self reviews as upstream's registries answer them (pkg/registry/authentication/
// selfsubjectreview, pkg/registry/authorization/selfsubject{access,rules}review, by behaviour):
// never stored, computed from the request's user and the server's authorizer. Each returns the
// object without apiVersion (the HTTP layer answers in the group the client named).

import type { UserInfo } from '../api/user-info.ts';
import { ApiError } from '../errors/api-error.ts';
import type { FieldError } from '../schema/types.ts';
import type { AuthorizationAttributes, Authorizer } from './authorizer.ts';
import { isObject } from '../json/is-object.ts';
import { nowTimestamp } from '../api/object.ts';

type Json = Record<string, unknown>;

const str = (o: Json, k: string): string => (typeof o[k] === 'string' ? (o[k] as string) : '');

/** An ObjectMeta with nothing set, as upstream's Go struct encodes it (a zero Time is `null`). */
const emptyMeta = (): Json => ({ creationTimestamp: null });

/** Nothing but managedFields may be set in a review's metadata (upstream's `must be empty`). */
function metadataIsEmpty(meta: unknown): boolean {
  if (meta === undefined || meta === null) return true;
  if (!isObject(meta)) return false;
  return Object.entries(meta).every(([k, v]) => k === 'managedFields' || v === null || v === '' || v === 0 || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0));
}

/** SelfSubjectReview: the requesting user as authentication saw it; creationTimestamp is now. */
export function selfSubjectReview(user: UserInfo, now = new Date()): Json {
  const userInfo: Json = { username: user.username };
  if (user.uid) userInfo.uid = user.uid;
  if (user.groups?.length) userInfo.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length) userInfo.extra = user.extra;
  return {
    kind: 'SelfSubjectReview',
    metadata: { creationTimestamp: nowTimestamp(now) },
    status: { userInfo },
  };
}

/** Selector attributes keep their raw selector for the authorizer (requirements pass through in the echo). */
const rawSelector = (v: unknown): string | undefined => (isObject(v) && typeof v.rawSelector === 'string' && v.rawSelector ? v.rawSelector : undefined);

function attributesOf(user: UserInfo, spec: Json): AuthorizationAttributes {
  if (isObject(spec.resourceAttributes)) {
    const r = spec.resourceAttributes;
    return {
      user,
      verb: str(r, 'verb'),
      resourceRequest: true,
      apiGroup: str(r, 'group'),
      apiVersion: str(r, 'version'),
      resource: str(r, 'resource'),
      subresource: str(r, 'subresource'),
      namespace: str(r, 'namespace'),
      name: str(r, 'name'),
      fieldSelector: rawSelector(r.fieldSelector),
      labelSelector: rawSelector(r.labelSelector),
    };
  }
  const n = spec.nonResourceAttributes as Json;
  return { user, verb: str(n, 'verb'), resourceRequest: false, path: str(n, 'path') };
}

/** upstream's ValidateSelfSubjectAccessReview: exactly one kind of attributes, empty metadata. */
function validateAccessReview(body: Json): FieldError[] {
  const spec = isObject(body.spec) ? body.spec : {};
  const errs: FieldError[] = [];
  const hasResource = isObject(spec.resourceAttributes);
  const hasNonResource = isObject(spec.nonResourceAttributes);
  if (hasResource && hasNonResource) {
    errs.push({ field: 'spec.nonResourceAttributes', reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(spec.nonResourceAttributes)}: cannot be specified in combination with resourceAttributes` });
  } else if (!hasResource && !hasNonResource) {
    errs.push({ field: 'spec.resourceAttributes', reason: 'FieldValueInvalid', message: 'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified' });
  }
  if (!metadataIsEmpty(body.metadata)) errs.push({ field: 'metadata', reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(body.metadata)}: must be empty` });
  return errs;
}

/** SelfSubjectAccessReview: the authorizer's decision on the spec's attributes for the requesting user. */
export function selfSubjectAccessReview(authorizer: Authorizer, user: UserInfo, body: Json, group: string): Json {
  const errs = validateAccessReview(body);
  if (errs.length) throw ApiError.invalid({ group, kind: 'SelfSubjectAccessReview' }, '', errs);
  const spec = body.spec as Json;
  let status: Json;
  try {
    const d = authorizer.authorize(attributesOf(user, spec));
    status = { allowed: d.decision === 'Allow' };
    if (d.decision === 'Deny') status.denied = true;
    if (d.reason) status.reason = d.reason;
    if (d.error) status.evaluationError = d.error;
  } catch (e) {
    status = { allowed: false, evaluationError: e instanceof Error ? e.message : String(e) };
  }
  return { kind: 'SelfSubjectAccessReview', metadata: emptyMeta(), spec, status };
}

/** SelfSubjectRulesReview: the rules the authorizer gives the requesting user in `spec.namespace`. */
export function selfSubjectRulesReview(authorizer: Authorizer, user: UserInfo, body: Json): Json {
  const spec = isObject(body.spec) ? body.spec : {};
  const namespace = str(spec, 'namespace');
  if (namespace === '') throw ApiError.badRequest('no namespace on request');
  const rules = authorizer.rulesFor(user, namespace);
  const status: Json = {
    resourceRules: rules.resourceRules.map((r) => {
      const out: Json = { verbs: r.verbs };
      if (r.apiGroups.length) out.apiGroups = r.apiGroups;
      if (r.resources.length) out.resources = r.resources;
      if (r.resourceNames?.length) out.resourceNames = r.resourceNames;
      return out;
    }),
    nonResourceRules: rules.nonResourceRules.map((r) => (r.nonResourceURLs.length ? { verbs: r.verbs, nonResourceURLs: r.nonResourceURLs } : { verbs: r.verbs })),
    incomplete: rules.incomplete,
  };
  if (rules.evaluationError) status.evaluationError = rules.evaluationError;
  return { kind: 'SelfSubjectRulesReview', metadata: emptyMeta(), spec: {}, status };
}
