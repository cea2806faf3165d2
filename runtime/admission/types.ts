// Types of the validating admission webhook engine (document 2, sections 2.5, 2.7, 5 to 8).
//
// The server builds one AdmissionAttributes per write (after validation, before storage) and calls
// ValidatingAdmission.validate(attrs). The result is either allowed (with warnings for `Warning`
// headers) or a rejection shaped like a Status (code, reason, message, details) that the server
// turns into its ApiError: `new ApiError(r.code, r.reason, r.message, r.details)`.

import type { UserInfo } from '../api/user-info.ts';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export type { UserInfo };

/** Labels of a namespace by name; undefined when the namespace does not exist. */
export type NamespaceLabelsLookup = (
  namespace: string,
) => Record<string, string> | undefined | Promise<Record<string, string> | undefined>;

export interface AdmissionAttributes {
  operation: Operation;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  /** '' or absent when the request is not about a subresource. */
  subResource?: string;
  /** The kind/resource as the client addressed it; default: kind/resource. */
  requestKind?: GroupVersionKind;
  requestResource?: GroupVersionResource;
  requestSubResource?: string;
  name?: string;
  /** '' or absent for cluster-scoped resources. For a Namespace object upstream passes its name here. */
  namespace?: string;
  /** The new object (null on DELETE). */
  object?: unknown;
  /** The existing object (null on CREATE). */
  oldObject?: unknown;
  dryRun?: boolean;
  /** CreateOptions / UpdateOptions / DeleteOptions / PatchOptions as a JSON object. */
  options?: unknown;
  userInfo: UserInfo;
  /**
   * Labels of the object's namespace for namespaceSelector: a lookup (called at most once per
   * request, only when a webhook with a non-empty namespaceSelector matches the request) or the
   * labels themselves. Absent: a non-empty namespaceSelector is evaluated against no labels.
   */
  namespaceLabels?: NamespaceLabelsLookup | Record<string, string>;
}

/** Status details, as in api-conventions. */
export interface RejectionDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: { reason?: string; message?: string; field?: string }[];
  retryAfterSeconds?: number;
}

/** An ApiError-like rejection: the fields of the Status the server must answer with. */
export interface AdmissionRejection {
  code: number;
  reason: string;
  message: string;
  details?: RejectionDetails;
}

export type AdmissionResult =
  | { allowed: true; warnings: string[] }
  | { allowed: false; rejection: AdmissionRejection; warnings: string[] };

// ---------------------------------------------------------------------------------------------
// ValidatingWebhookConfiguration (admissionregistration.cluster.io/v1), as stored (JSON).

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export interface RuleWithOperations {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  /** `Cluster`, `Namespaced` or `*` (default). */
  scope?: string;
}

export interface ServiceReference {
  namespace: string;
  name: string;
  path?: string;
  port?: number;
}

export interface WebhookClientConfig {
  url?: string;
  service?: ServiceReference;
  /** Base64 of a PEM bundle (JSON form of []byte). */
  caBundle?: string;
}

export interface MatchCondition {
  name: string;
  expression: string;
}

export type FailurePolicy = 'Fail' | 'Ignore';
export type MatchPolicy = 'Exact' | 'Equivalent';
export type SideEffectClass = 'None' | 'NoneOnDryRun' | 'Some' | 'Unknown';

export interface ValidatingWebhook {
  name: string;
  clientConfig: WebhookClientConfig;
  rules?: RuleWithOperations[];
  failurePolicy?: FailurePolicy | string;
  matchPolicy?: MatchPolicy | string;
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  sideEffects?: SideEffectClass | string;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  matchConditions?: MatchCondition[];
}

export interface ValidatingWebhookConfiguration {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; uid?: string; resourceVersion?: string; generation?: number; [k: string]: unknown };
  webhooks?: ValidatingWebhook[];
}

// ---------------------------------------------------------------------------------------------
// Authorization (the CEL `authorizer` of match conditions)

export type { AuthorizationAttributes, AuthorizationDecision, Authorizer } from '../authorization/authorizer.ts';
export { allowAllAuthorizer } from '../authorization/authorizer.ts';

/** The API group of admission configurations; requests about them are never sent to webhooks. */
export const ADMISSION_REGISTRATION_GROUP = 'admissionregistration.cluster.io';
/** The AdmissionReview group. */
export const ADMISSION_GROUP = 'admission.cluster.io';
/** AdmissionReview versions we can send, in our order of support. */
export const SUPPORTED_REVIEW_VERSIONS = ['v1', 'v1beta1'] as const;
export type ReviewVersion = (typeof SUPPORTED_REVIEW_VERSIONS)[number];
