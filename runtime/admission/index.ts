// Public API of the validating admission webhook engine.
export * from './types.ts';
export {
  compileLabelSelector,
  objectLabels,
  ruleMatches,
  matchRules,
  isExemptAdmissionConfigurationResource,
  isNamespaceResource,
  namespaceLabelSource,
  matchNamespaceSelector,
  matchObjectSelector,
} from './matching.ts';
export type { CompiledSelector, EquivalentResourceMapper, Invocation, Labels, RuleSubject, NamespaceLabelSource } from './matching.ts';
export {
  authorizerCelLibrary,
  authorizerUnavailable,
  compileMatchConditions,
  evaluateMatchConditions,
  celRequestOf,
} from './match-conditions.ts';
export type { CompiledMatchConditions, MatchConditionResult, MatchConditionInput } from './match-conditions.ts';
export {
  WebhookClient,
  DefaultServiceResolver,
  parseServiceResolverOverrides,
  buildAdmissionReview,
  pickReviewVersion,
  webhookRejection,
  DEFAULT_TIMEOUT_SECONDS,
  DEFAULT_MAX_RESPONSE_BYTES,
} from './client.ts';
export type { ServiceResolver, WebhookClientOptions, CallOutcome, CallOptions } from './client.ts';
export { ValidatingAdmission } from './dispatcher.ts';
export type { ValidatingAdmissionOptions, ValidateOptions, WebhookEvent, PreparedWebhook } from './dispatcher.ts';
