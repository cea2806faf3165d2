// Conversion between the version a resource is served at and the version it is stored at: custom
// resources only (built-in kinds have one version each here).

import { ApiError } from '../errors/api-error.ts';
import type { Obj } from '../api/object.ts';

/**
 * Converts custom resources between versions (runtime/crd/conversion.ts). Objects already at
 * `apiVersion` come back as they are; inputs are not modified; failures are ApiErrors.
 */
export interface ObjectConverter {
  convert(objects: readonly Obj[], apiVersion: string, opts?: { list?: boolean }): Promise<Obj[]>;
}

/** Conversion None: only apiVersion changes. */
export const API_VERSION_ONLY: ObjectConverter = {
  async convert(objects, apiVersion) {
    return objects.map((o) => (o.apiVersion === apiVersion ? o : { ...o, apiVersion }));
  },
};

/** Objects, each at the apiVersion it carries (`storedAt` when it has none), converted to `apiVersion`. */
export async function convertObjects(converter: ObjectConverter, objs: Obj[], apiVersion: string, storedAt: string, list = false): Promise<Obj[]> {
  for (const o of objs) if (o.apiVersion === undefined) o.apiVersion = storedAt;
  try {
    return await converter.convert(objs, apiVersion, { list });
  } catch (e) {
    throw e instanceof ApiError ? e : new ApiError(500, '', e instanceof Error ? e.message : String(e));
  }
}
