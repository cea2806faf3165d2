// apiVersion and kind of a request body: filled when absent, 400 when they name another resource.

import type { Obj } from '../../api/object.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { ResourceContext } from './context.ts';

export function checkTypeMeta(ctx: ResourceContext, obj: Obj): void {
  if (obj.apiVersion === undefined || obj.apiVersion === '') obj.apiVersion = ctx.apiVersion;
  if (obj.kind === undefined || obj.kind === '') obj.kind = ctx.descriptor.kind;
  if (obj.apiVersion !== ctx.apiVersion) {
    throw ApiError.badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${ctx.apiVersion})`);
  }
  if (obj.kind !== ctx.descriptor.kind) {
    throw ApiError.badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${ctx.descriptor.kind})`);
  }
}

/** The namespace of the request on a namespaced object (400 when the body names another); dropped on cluster-scoped ones. */
export function checkNamespace(ctx: ResourceContext, obj: Obj, namespace: string | undefined): void {
  const m = obj.metadata as Record<string, unknown>;
  if (ctx.descriptor.namespaced) {
    if (m.namespace && namespace && m.namespace !== namespace) {
      throw ApiError.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    if (namespace) m.namespace = namespace;
  } else {
    delete m.namespace;
  }
}
