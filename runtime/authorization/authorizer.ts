// The one authorizer interface of the server (upstream's authorizer.Authorizer and RuleResolver in
// one): webhook match conditions' CEL `authorizer` and the SelfSubjectAccessReview /
// SelfSubjectRulesReview APIs both ask it, so real authorization replaces one object.

import type { UserInfo } from '../api/user-info.ts';

export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  /** True for a resource check, false for a non-resource (path) check. */
  resourceRequest: boolean;
  apiGroup?: string;
  apiVersion?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  path?: string;
  fieldSelector?: string;
  labelSelector?: string;
}

export interface AuthorizationDecision {
  decision: 'Allow' | 'Deny' | 'NoOpinion';
  reason?: string;
  /** Set when the authorizer failed; `errored()` is then true in CEL. */
  error?: string;
}

/** What a user may do on resources (upstream's ResourceRuleInfo); `*` means all. */
export interface ResourceRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
}

/** What a user may do on non-resource URLs (upstream's NonResourceRuleInfo). */
export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs: string[];
}

export interface RulesForResult {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  /** True when the list may be missing rules (an authorizer that cannot enumerate them). */
  incomplete: boolean;
  evaluationError?: string;
}

/**
 * The server's authorizer. Synchronous, because CEL evaluates synchronously: an implementation
 * backed by storage must answer from an in-memory cache.
 */
export interface Authorizer {
  authorize(attrs: AuthorizationAttributes): AuthorizationDecision;
  /** The rules that apply to `user` in `namespace` (SelfSubjectRulesReview, `kubectl auth can-i --list`). */
  rulesFor(user: UserInfo, namespace: string): RulesForResult;
}

/** Today every authenticated user is allowed everything: upstream's AlwaysAllow (reason "", all verbs on all). */
export const allowAllAuthorizer: Authorizer = {
  authorize: () => ({ decision: 'Allow', reason: '' }),
  rulesFor: () => ({
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
  }),
};
