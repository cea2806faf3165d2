// Webhook matchConditions (document 2, 2.5): CEL expressions over `object`, `oldObject`,
// `request`, `namespaceObject`, `authorizer` and `authorizer.requestResource`, compiled once per configuration
// version (the dispatcher keeps compiled conditions in its snapshot), evaluated per request.
//
// Semantics: any FALSE skips the webhook; all TRUE calls it; an error with none FALSE rejects
// under failurePolicy Fail and skips under Ignore.
//
// The CEL `authorizer` is a library of object types registered in the CEL base environment
// (kubernetes.authorization.Authorizer / GroupCheck / ResourceCheck / PathCheck / Decision).
// It must be installed before the first CEL environment is built: this module installs it at
// import; `authorizerCelLibrary` is exported so runtime/cel/libraries.ts can list it too (the
// library is idempotent per environment), which removes the import-order dependency.

import { CelEnvironment, jsonToDyn, PER_CALL_COST_LIMIT, type CompiledExpression } from '../cel/index.ts';
import type { ObjectTypeDef } from '../cel/values.ts';
import { installLibraries, type CelRegistrar } from '../cel/engine.ts';
import { admissionRequestOf } from './admission-request.ts';
import type {
  AdmissionAttributes,
  AuthorizationAttributes,
  AuthorizationDecision,
  Authorizer,
  GroupVersionKind,
  GroupVersionResource,
  MatchCondition,
  UserInfo,
} from './types.ts';

// ---------------------------------------------------------------------------------------------
// The CEL authorizer library (upstream k8s.io/apiserver/pkg/cel/library/authz.go, by behaviour)

const T = 'kubernetes.authorization';

/** Private state is in #fields so that CEL field selection cannot read it. */
export class CelAuthorizer {
  readonly #authz: Authorizer;
  readonly #user: UserInfo;
  /** Set on the `authorizer` variable: `authorizer.requestResource`. */
  requestResource?: CelResourceCheck;
  constructor(authz: Authorizer, user: UserInfo) {
    this.#authz = authz;
    this.#user = user;
  }
  static authz(a: CelAuthorizer): Authorizer {
    return a.#authz;
  }
  static user(a: CelAuthorizer): UserInfo {
    return a.#user;
  }
}

export class CelPathCheck {
  readonly #a: CelAuthorizer;
  readonly #path: string;
  constructor(a: CelAuthorizer, path: string) {
    this.#a = a;
    this.#path = path;
  }
  static check(p: CelPathCheck, verb: string): CelDecision {
    return decide(p.#a, { verb, resourceRequest: false, path: p.#path });
  }
}

export class CelGroupCheck {
  readonly #a: CelAuthorizer;
  readonly #group: string;
  constructor(a: CelAuthorizer, group: string) {
    this.#a = a;
    this.#group = group;
  }
  static resource(g: CelGroupCheck, resource: string): CelResourceCheck {
    return new CelResourceCheck(g.#a, { apiGroup: g.#group, resource });
  }
}

interface ResourceFields {
  apiGroup: string;
  apiVersion?: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  fieldSelector?: string;
  labelSelector?: string;
}

export class CelResourceCheck {
  readonly #a: CelAuthorizer;
  readonly #f: ResourceFields;
  constructor(a: CelAuthorizer, f: ResourceFields) {
    this.#a = a;
    this.#f = f;
  }
  static with(c: CelResourceCheck, patch: Partial<ResourceFields>): CelResourceCheck {
    return new CelResourceCheck(c.#a, { ...c.#f, ...patch });
  }
  static check(c: CelResourceCheck, verb: string): CelDecision {
    return decide(c.#a, { verb, resourceRequest: true, ...c.#f });
  }
}

export class CelDecision {
  readonly #d: AuthorizationDecision;
  constructor(d: AuthorizationDecision) {
    this.#d = d;
  }
  static of(d: CelDecision): AuthorizationDecision {
    return d.#d;
  }
}

function decide(a: CelAuthorizer, attrs: Omit<AuthorizationAttributes, 'user'>): CelDecision {
  let d: AuthorizationDecision;
  try {
    d = CelAuthorizer.authz(a).authorize({ user: CelAuthorizer.user(a), ...attrs });
  } catch (e) {
    d = { decision: 'NoOpinion', reason: '', error: e instanceof Error ? e.message : String(e) };
  }
  return new CelDecision(d);
}

function serviceAccountUser(namespace: string, name: string): UserInfo {
  return {
    username: `system:serviceaccount:${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
  };
}

const registered = new WeakSet<CelRegistrar>();

/** Registers the authorizer types and functions (idempotent per environment). */
export function authorizerCelLibrary(r: CelRegistrar): void {
  if (registered.has(r)) return;
  registered.add(r);
  const A = `${T}.Authorizer`;
  const P = `${T}.PathCheck`;
  const G = `${T}.GroupCheck`;
  const R = `${T}.ResourceCheck`;
  const D = `${T}.Decision`;
  r.type(A, CelAuthorizer);
  r.type(P, CelPathCheck);
  r.type(G, CelGroupCheck);
  r.type(R, CelResourceCheck);
  r.type(D, CelDecision);
  const fn = (sig: string, h: (...a: never[]) => unknown): void => r.fn(sig, h);
  fn(`${A}.path(string): ${P}`, ((a: CelAuthorizer, p: string) => new CelPathCheck(a, p)) as never);
  fn(`${A}.group(string): ${G}`, ((a: CelAuthorizer, g: string) => new CelGroupCheck(a, g)) as never);
  fn(`${A}.serviceAccount(string, string): ${A}`, ((a: CelAuthorizer, ns: string, name: string) =>
    new CelAuthorizer(CelAuthorizer.authz(a), serviceAccountUser(ns, name))) as never);
  fn(`${G}.resource(string): ${R}`, ((g: CelGroupCheck, res: string) => CelGroupCheck.resource(g, res)) as never);
  for (const field of ['subresource', 'namespace', 'name', 'fieldSelector', 'labelSelector'] as const) {
    fn(`${R}.${field}(string): ${R}`, ((c: CelResourceCheck, v: string) => CelResourceCheck.with(c, { [field]: v })) as never);
  }
  fn(`${R}.check(string): ${D}`, ((c: CelResourceCheck, verb: string) => CelResourceCheck.check(c, verb)) as never);
  fn(`${P}.check(string): ${D}`, ((p: CelPathCheck, verb: string) => CelPathCheck.check(p, verb)) as never);
  fn(`${D}.allowed(): bool`, ((d: CelDecision) => CelDecision.of(d).decision === 'Allow') as never);
  fn(`${D}.reason(): string`, ((d: CelDecision) => CelDecision.of(d).reason ?? '') as never);
  fn(`${D}.errored(): bool`, ((d: CelDecision) => CelDecision.of(d).error !== undefined) as never);
  fn(`${D}.error(): string`, ((d: CelDecision) => CelDecision.of(d).error ?? '') as never);
}

/** Why the authorizer is unavailable in match conditions (undefined when it is available). */
export let authorizerUnavailable: string | undefined;
try {
  installLibraries([authorizerCelLibrary]);
} catch (e) {
  authorizerUnavailable = e instanceof Error ? e.message : String(e);
}

// ---------------------------------------------------------------------------------------------
// Compilation

// The declared types of `request` and `namespaceObject`, as upstream's BuildRequestType and
// BuildNamespaceType (k8s.io/apiserver/pkg/admission/plugin/cel/compile.go): `request.foo` or
// `request.userInfo.username == 1` do not compile. `request` has no uid, object or oldObject.
const TS = 'google.protobuf.Timestamp';
const REQUEST_TYPE = 'kubernetes.AdmissionRequest';
const GVK = 'kubernetes.GroupVersionKind';
const GVR = 'kubernetes.GroupVersionResource';
const USER_INFO = 'kubernetes.UserInfo';
const MATCH_CONDITION_TYPES: ObjectTypeDef[] = [
  { name: GVK, fields: { group: 'string', version: 'string', kind: 'string' } },
  { name: GVR, fields: { group: 'string', version: 'string', resource: 'string' } },
  { name: USER_INFO, fields: { username: 'string', uid: 'string', groups: 'list<string>', extra: 'map<string, list<string>>' } },
  {
    name: REQUEST_TYPE,
    fields: {
      kind: GVK, resource: GVR, subResource: 'string', requestKind: GVK, requestResource: GVR, requestSubResource: 'string',
      name: 'string', namespace: 'string', operation: 'string', userInfo: USER_INFO, dryRun: 'bool', options: 'dyn',
    },
  },
  { name: 'kubernetes.NamespaceSpec', fields: { finalizers: 'list<string>' } },
  { name: 'kubernetes.NamespaceCondition', fields: { status: 'string', type: 'string', lastTransitionTime: TS, message: 'string', reason: 'string' } },
  { name: 'kubernetes.NamespaceStatus', fields: { conditions: 'list<kubernetes.NamespaceCondition>', phase: 'string' } },
  {
    name: 'kubernetes.NamespaceMetadata',
    fields: {
      name: 'string', generateName: 'string', namespace: 'string', labels: 'map<string, string>', annotations: 'map<string, string>',
      UID: 'string', creationTimestamp: TS, deletionGracePeriodSeconds: 'int', deletionTimestamp: TS, generation: 'int',
      resourceVersion: 'string', finalizers: 'list<string>',
    },
  },
  { name: 'kubernetes.Namespace', fields: { metadata: 'kubernetes.NamespaceMetadata', spec: 'kubernetes.NamespaceSpec', status: 'kubernetes.NamespaceStatus' } },
];
/** The fields of `request` that hold objects of a declared type (the rest are plain values). */
const REQUEST_OBJECT_FIELDS: Record<string, string> = { kind: GVK, resource: GVR, requestKind: GVK, requestResource: GVR, userInfo: USER_INFO };

let envCache: CelEnvironment | null = null;
function matchConditionEnv(): CelEnvironment {
  if (envCache) return envCache;
  // namespaceObject compiles as upstream's; webhooks are given none, so it is null when evaluated
  const variables: Record<string, string> = { object: 'dyn', oldObject: 'dyn', request: REQUEST_TYPE, namespaceObject: 'kubernetes.Namespace' };
  if (authorizerUnavailable === undefined) {
    variables.authorizer = `${T}.Authorizer`;
    variables['authorizer.requestResource'] = `${T}.ResourceCheck`;
  }
  envCache = new CelEnvironment({ variables, types: MATCH_CONDITION_TYPES });
  return envCache;
}

/** The `request` variable as a value of its declared type (absent fields stay absent: has() is false). */
function celRequestValue(request: Record<string, unknown>): unknown {
  const env = matchConditionEnv();
  const typed = new (env.objectClass(REQUEST_TYPE))();
  for (const [k, v] of Object.entries(request)) {
    if (k === 'uid') continue; // not a field of upstream's request type
    const objectType = REQUEST_OBJECT_FIELDS[k];
    if (objectType === undefined || v === null || typeof v !== 'object') {
      typed.set(k, jsonToDyn(v));
      continue;
    }
    const nested = new (env.objectClass(objectType))();
    for (const [nk, nv] of Object.entries(v as Record<string, unknown>)) nested.set(nk, jsonToDyn(nv));
    typed.set(k, nested);
  }
  return typed;
}

export interface CompiledMatchCondition {
  name: string;
  expression: string;
  program?: CompiledExpression;
  /** Set when the expression did not compile (a persisted configuration written before a change). */
  compileError?: string;
}

export interface CompiledMatchConditions {
  readonly conditions: readonly CompiledMatchCondition[];
}

/** Counts compilations (tests check conditions are compiled once per configuration version). */
export const compileStats = { expressions: 0 };

export function compileMatchConditions(conditions: readonly MatchCondition[] | undefined): CompiledMatchConditions {
  const out: CompiledMatchCondition[] = [];
  for (const c of conditions ?? []) {
    compileStats.expressions++;
    try {
      const program = matchConditionEnv().compile(c.expression);
      // upstream (CompileCELExpression) wants exactly bool: a dyn result, such as `object.spec.enabled`, is refused too
      if (program.type !== 'bool') {
        // upstream's wording, with cel-go's spelling of parameterized types (list(int), not list<int>)
        const got = program.type.replaceAll('<', '(').replaceAll('>', ')');
        out.push({ name: c.name, expression: c.expression, compileError: `must evaluate to bool but got ${got}` });
      } else out.push({ name: c.name, expression: c.expression, program });
    } catch (e) {
      out.push({ name: c.name, expression: c.expression, compileError: e instanceof Error ? e.message : String(e) });
    }
  }
  return { conditions: out };
}

// ---------------------------------------------------------------------------------------------
// Evaluation

/** The resource/kind the webhook is invoked for (equal to the request's unless converted). */
export interface MatchConditionInput {
  attrs: AdmissionAttributes;
  resource?: GroupVersionResource;
  kind?: GroupVersionKind;
  authorizer?: Authorizer;
  /** Per-request cache of converted variables, shared across the webhooks of one request. */
  cache?: Map<string, Record<string, unknown>>;
}

export type MatchConditionResult =
  | { matches: true }
  | { matches: false; failedCondition?: string }
  | { matches: false; error: string };

/** The `request` variable: the AdmissionRequest (without uid/object/oldObject), omitempty like upstream. */
export function celRequestOf(attrs: AdmissionAttributes, resource = attrs.resource, kind = attrs.kind): Record<string, unknown> {
  return admissionRequestOf(attrs, { resource, kind, subResource: attrs.subResource ?? '' }, 'cel');
}

function aggregate(errs: string[]): string {
  return errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`;
}

/**
 * Evaluates the compiled conditions. FALSE anywhere: no match. Errors and no FALSE: an error
 * under Fail, no match under Ignore.
 */
export function evaluateMatchConditions(
  compiled: CompiledMatchConditions,
  input: MatchConditionInput,
  failurePolicy: string | undefined,
): MatchConditionResult {
  if (compiled.conditions.length === 0) return { matches: true };
  const { attrs } = input;
  let vars: Record<string, unknown> | undefined;
  const errors: string[] = [];
  for (const c of compiled.conditions) {
    if (!c.program) {
      errors.push(`compilation error: ${c.compileError ?? 'unknown'}`);
      continue;
    }
    vars ??= cachedVariables(input, attrs);
    let v: unknown;
    try {
      v = c.program.evaluate(vars, PER_CALL_COST_LIMIT);
    } catch (e) {
      errors.push(`expression '${c.expression}' resulted in error: ${e instanceof Error ? firstLine(e.message) : String(e)}`);
      continue;
    }
    if (v === false) return { matches: false, failedCondition: c.name };
    if (v !== true) errors.push(`expression '${c.expression}' resulted in error: must evaluate to bool`);
  }
  if (errors.length > 0) {
    if ((failurePolicy ?? 'Fail') === 'Ignore') return { matches: false };
    return { matches: false, error: aggregate(errors) };
  }
  return { matches: true };
}

function firstLine(s: string): string {
  const i = s.indexOf('\n');
  return i < 0 ? s : s.slice(0, i);
}

function cachedVariables(input: MatchConditionInput, attrs: AdmissionAttributes): Record<string, unknown> {
  if (!input.cache) return bindVariables(input, attrs);
  const r = input.resource ?? attrs.resource;
  const k = input.kind ?? attrs.kind;
  const key = `${r.group}/${r.version}/${r.resource}|${k.group}/${k.version}/${k.kind}`;
  let vars = input.cache.get(key);
  if (!vars) input.cache.set(key, (vars = bindVariables(input, attrs)));
  return vars;
}

function bindVariables(input: MatchConditionInput, attrs: AdmissionAttributes): Record<string, unknown> {
  const vars: Record<string, unknown> = {
    object: jsonToDyn(attrs.object ?? null),
    oldObject: jsonToDyn(attrs.oldObject ?? null),
    request: celRequestValue(celRequestOf(attrs, input.resource, input.kind)),
    namespaceObject: null,
  };
  if (authorizerUnavailable === undefined && input.authorizer) {
    const a = new CelAuthorizer(input.authorizer, attrs.userInfo);
    const r = input.resource ?? attrs.resource;
    const rr = new CelResourceCheck(a, {
      apiGroup: r.group,
      apiVersion: r.version,
      resource: r.resource,
      subresource: attrs.subResource ?? '',
      namespace: attrs.namespace ?? '',
      name: attrs.name ?? '',
    });
    a.requestResource = rr;
    vars.authorizer = a;
    vars['authorizer.requestResource'] = rr;
  }
  return vars;
}
