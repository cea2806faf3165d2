// The one error type of the API server. Every failure on the request path is an ApiError; it is
// rendered to a `Status` object (api-conventions 1.1) only at the HTTP edge, by `toStatus()`.

import type { FieldError, FieldErrorReason } from '../schema/types.ts';

export type StatusReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'UnsupportedMediaType'
  | 'RequestEntityTooLarge'
  | 'Expired'
  | 'InternalError'
  | 'ServerTimeout'
  | 'Timeout'
  | 'TooManyRequests'
  | 'ServiceUnavailable'
  | '';

export interface StatusCause {
  reason?: FieldErrorReason | string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

/** Names a resource the way errors do: the plural and its group (empty for core). */
export interface ResourceRef {
  group: string;
  plural: string;
}
/** Names a kind the way Invalid does. */
export interface KindRef {
  group: string;
  kind: string;
}

/** `configmaps` or `storageclasses.storage.cluster.io`. */
export function qualifiedResource(r: ResourceRef): string {
  return r.group ? `${r.plural}.${r.group}` : r.plural;
}
/** `ConfigMap` or `StorageClass.storage.cluster.io`. */
export function qualifiedKind(k: KindRef): string {
  return k.group ? `${k.kind}.${k.group}` : k.kind;
}

/** One field error as upstream prints it: `<path>: <body>`. */
export function fieldErrorText(e: FieldError): string {
  return `${e.field}: ${e.message}`;
}

/** Upstream's aggregate: identical texts deduplicated; one bare, several as `[e1, e2]`. */
export function aggregateFieldErrors(errs: readonly FieldError[]): string {
  const seen = new Set<string>();
  const texts: string[] = [];
  for (const e of errs) {
    const t = fieldErrorText(e);
    if (!seen.has(t)) {
      seen.add(t);
      texts.push(t);
    }
  }
  if (texts.length === 0) return '';
  if (texts.length === 1) return texts[0];
  return `[${texts.join(', ')}]`;
}

export class ApiError extends Error {
  readonly code: number;
  readonly reason: StatusReason;
  readonly details: StatusDetails | undefined;
  /** Extra response headers (Retry-After). */
  readonly headers: Record<string, string>;
  /** Status.metadata (an expired continue token carries a fresh one here). */
  statusMetadata: Status['metadata'] | undefined;
  /** Warnings gathered before the failure (admission webhooks that allowed), sent as `Warning` headers with it. */
  readonly warnings: string[] = [];

  constructor(code: number, reason: StatusReason, message: string, details?: StatusDetails, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.reason = reason;
    this.details = details;
    this.headers = headers;
  }

  /** The Status object, with upstream's key order (kind, apiVersion, metadata, status, message, reason, details, code). */
  toStatus(): Status {
    return renderStatus({
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      details: this.details,
      code: this.code,
      metadata: this.statusMetadata ? { ...this.statusMetadata } : undefined,
    });
  }

  // ---- constructors, one per reason of api-conventions 1.2 ----

  static notFound(r: ResourceRef, name: string): ApiError {
    return new ApiError(404, 'NotFound', `${qualifiedResource(r)} "${name}" not found`, resDetails(r, name));
  }

  static alreadyExists(r: ResourceRef, name: string, opts: { deleting?: boolean; generateNameExhausted?: boolean } = {}): ApiError {
    let msg = `${qualifiedResource(r)} "${name}" already exists`;
    if (opts.deleting) msg = `object is being deleted: ${msg}`;
    const details = resDetails(r, name);
    if (opts.generateNameExhausted) {
      msg += ', the server was not able to generate a unique name for the object';
      details.retryAfterSeconds = 1;
    }
    return new ApiError(409, 'AlreadyExists', msg, details);
  }

  static conflict(r: ResourceRef, name: string, why: string): ApiError {
    return new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(r)} "${name}": ${why}`, resDetails(r, name));
  }

  /** 409 for a stale resourceVersion (optimistic lock). */
  static staleConflict(r: ResourceRef, name: string): ApiError {
    return ApiError.conflict(r, name, 'the object has been modified; please apply your changes to the latest version and try again');
  }

  /** 422 `<Kind> "<n>" is invalid: <errors>`; details.kind is the Kind (or what `kind` names). */
  static invalid(k: KindRef, name: string, errs: readonly FieldError[]): ApiError {
    const details: StatusDetails = { name };
    if (k.group) details.group = k.group;
    details.kind = k.kind;
    details.causes = errs.map((e) => ({ reason: e.reason, message: e.message, field: e.field }));
    return new ApiError(422, 'Invalid', `${qualifiedKind(k)} "${name}" is invalid: ${aggregateFieldErrors(errs)}`, details);
  }

  /** Invalid options: `ListOptions.meta.cluster.io "" is invalid: …`. */
  static invalidOptions(optionsKind: 'ListOptions' | 'DeleteOptions' | 'PatchOptions' | 'CreateOptions' | 'UpdateOptions', errs: readonly FieldError[]): ApiError {
    return ApiError.invalid({ kind: optionsKind, group: 'meta.cluster.io' }, '', errs);
  }

  static badRequest(message: string): ApiError {
    return new ApiError(400, 'BadRequest', message);
  }

  static unauthorized(message = 'Unauthorized'): ApiError {
    return new ApiError(401, 'Unauthorized', message);
  }

  static forbidden(r: ResourceRef | undefined, name: string, why: string): ApiError {
    if (!r) return new ApiError(403, 'Forbidden', `forbidden: ${why}`, {});
    const msg = name ? `${qualifiedResource(r)} "${name}" is forbidden: ${why}` : `${qualifiedResource(r)} is forbidden: ${why}`;
    return new ApiError(403, 'Forbidden', msg, resDetails(r, name));
  }

  /** From storage (a verb the resource does not support) when `r` is given; else the route-level text. */
  static methodNotAllowed(r?: ResourceRef, verb?: string): ApiError {
    if (r && verb) {
      const d: StatusDetails = {};
      if (r.group) d.group = r.group;
      d.kind = r.plural;
      return new ApiError(405, 'MethodNotAllowed', `${verb} is not supported on resources of kind "${qualifiedResource(r)}"`, d);
    }
    // a method no route of a known path has (DELETE on /api/v1/namespaces, whose storage has no
    // DeleteCollection): go-restful's 405 as upstream's service error handler renders it
    // (apierrors.NewGenericServerResponse: empty details, no Allow header)
    return new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
  }

  static notAcceptable(accepted: readonly string[]): ApiError {
    return new ApiError(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);
  }

  static unsupportedMediaType(accepted: readonly string[]): ApiError {
    return new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
  }

  static requestEntityTooLarge(detail: string): ApiError {
    return new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: ${detail}`);
  }

  static expired(message: string): ApiError {
    return new ApiError(410, 'Expired', message);
  }

  static internal(err: unknown): ApiError {
    const text = err instanceof Error ? err.message : String(err);
    return new ApiError(500, 'InternalError', `Internal error occurred: ${text}`, { causes: [{ message: text }] });
  }

  static serverTimeout(r: ResourceRef, op: string, retryAfterSeconds: number): ApiError {
    const d: StatusDetails = {};
    if (r.group) d.group = r.group;
    d.kind = r.plural;
    d.retryAfterSeconds = retryAfterSeconds;
    return new ApiError(500, 'ServerTimeout', `The ${op} operation against ${qualifiedResource(r)} could not be completed at this time, please try again.`, d);
  }

  static timeout(detail: string, retryAfterSeconds?: number, causes?: StatusCause[]): ApiError {
    const d: StatusDetails = {};
    if (causes) d.causes = causes;
    if (retryAfterSeconds !== undefined) d.retryAfterSeconds = retryAfterSeconds;
    return new ApiError(504, 'Timeout', `Timeout: ${detail}`, Object.keys(d).length ? d : undefined);
  }

  static tooManyRequests(detail: string, retryAfterSeconds: number): ApiError {
    return new ApiError(429, 'TooManyRequests', `Too many requests: ${detail}`, { retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) });
  }

  static serviceUnavailable(message: string): ApiError {
    return new ApiError(503, 'ServiceUnavailable', message);
  }
}

function resDetails(r: ResourceRef, name: string): StatusDetails {
  const d: StatusDetails = {};
  if (name) d.name = name;
  if (r.group) d.group = r.group;
  d.kind = r.plural;
  return d;
}

/** Builds a Status with the exact key order of upstream; empty status → Failure, code 0 → 500 on failures. */
export function renderStatus(s: {
  status?: 'Failure' | 'Success' | '';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
  metadata?: Status['metadata'];
}): Status {
  const status = s.status ? s.status : 'Failure';
  const out: Status = { kind: 'Status', apiVersion: 'v1', metadata: s.metadata ?? {}, status };
  if (s.message) out.message = s.message;
  if (s.reason) out.reason = s.reason;
  if (s.details) out.details = orderDetails(s.details);
  if (status === 'Failure') out.code = s.code ? s.code : 500;
  else if (s.code) out.code = s.code;
  return out;
}

function orderDetails(d: StatusDetails): StatusDetails {
  const o: StatusDetails = {};
  if (d.name !== undefined && d.name !== '') o.name = d.name;
  if (d.group) o.group = d.group;
  if (d.kind) o.kind = d.kind;
  if (d.uid) o.uid = d.uid;
  if (d.causes && d.causes.length) {
    o.causes = d.causes.map((c) => {
      const cc: StatusCause = {};
      if (c.reason) cc.reason = c.reason;
      if (c.message) cc.message = c.message;
      if (c.field) cc.field = c.field;
      return cc;
    });
  }
  if (d.retryAfterSeconds) o.retryAfterSeconds = d.retryAfterSeconds;
  return o;
}

/** The Success Status a DELETE of a `deleteReturns: Status` resource answers with (no code). */
export function successStatus(r: ResourceRef, name: string, uid: string | undefined): Status {
  const d: StatusDetails = { name };
  if (r.group) d.group = r.group;
  d.kind = r.plural;
  if (uid) d.uid = uid;
  return renderStatus({ status: 'Success', details: d });
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}
