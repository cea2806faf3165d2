// The AdmissionRequest of one webhook invocation, built once for both of its uses: the body of the
// AdmissionReview a webhook is sent (client.ts), and the `request` variable of its matchConditions
// (match-conditions.ts), which upstream gives without uid, object and oldObject and with empty
// fields omitted.

import type { AdmissionAttributes, GroupVersionKind, GroupVersionResource, UserInfo } from './types.ts';

/** The resource a webhook is invoked for (the request's, or an equivalent version of it). */
export interface RequestTarget {
  resource: GroupVersionResource;
  kind: GroupVersionKind;
  subResource: string;
}

/** `review`: the AdmissionReview's request; `cel`: the matchConditions variable. */
export function admissionRequestOf(attrs: AdmissionAttributes, target: RequestTarget, form: 'review' | 'cel', uid = ''): Record<string, unknown> {
  const rk = attrs.requestKind ?? attrs.kind;
  const rr = attrs.requestResource ?? attrs.resource;
  const request: Record<string, unknown> = {
    uid,
    kind: { group: target.kind.group, version: target.kind.version, kind: target.kind.kind },
    resource: { group: target.resource.group, version: target.resource.version, resource: target.resource.resource },
  };
  if (target.subResource) request.subResource = target.subResource;
  request.requestKind = { group: rk.group, version: rk.version, kind: rk.kind };
  request.requestResource = { group: rr.group, version: rr.version, resource: rr.resource };
  const rsub = attrs.requestSubResource ?? attrs.subResource;
  if (rsub) request.requestSubResource = rsub;
  if (attrs.name) request.name = attrs.name;
  if (attrs.namespace) request.namespace = attrs.namespace;
  request.operation = attrs.operation;
  request.userInfo = userInfoJSON(attrs.userInfo);
  if (form === 'review') {
    request.object = attrs.object ?? null;
    request.oldObject = attrs.oldObject ?? null;
    request.dryRun = attrs.dryRun === true;
    request.options = attrs.options ?? null;
  } else {
    request.dryRun = attrs.dryRun === true; // upstream's CreateAdmissionRequest points DryRun at the value: always present
    if (attrs.options !== undefined && attrs.options !== null) request.options = attrs.options;
  }
  return request;
}

/** UserInfo as upstream serializes it (empty fields omitted). */
export function userInfoJSON(u: UserInfo): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (u.username) out.username = u.username;
  if (u.uid) out.uid = u.uid;
  if (u.groups && u.groups.length > 0) out.groups = [...u.groups];
  if (u.extra && Object.keys(u.extra).length > 0) out.extra = u.extra;
  return out;
}
