// The admission chain the registry's Store calls once per write, after defaulting and validation
// and just before storage (upstream's admission.Interface chain): namespace lifecycle first, then the
// validating webhooks. Each plugin answers with warnings or throws an ApiError; the warnings of the
// plugins that ran go back in the write's result, or on the error that stopped the chain.

import type { Obj } from '../api/object.ts';
import type { Subresource } from '../api/resource-descriptor.ts';
import { ApiError } from '../errors/api-error.ts';
import type { UserInfo } from './types.ts';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE';

/** One write as admission sees it. */
export interface AdmissionCheck {
  operation: AdmissionOperation;
  /** The resource written (its served version). */
  resource: { group: string; version: string; kind: string; plural: string; namespaced: boolean };
  /** The object as it would be stored; undefined on DELETE. */
  object: Obj | undefined;
  /** The stored object; undefined on CREATE. */
  oldObject: Obj | undefined;
  /** The object's name as the request gave it ('' for a create with generateName, as upstream). */
  name: string;
  namespace: string | undefined;
  subresource?: Subresource;
  dryRun: boolean;
}

/**
 * Who asked, for the plugins that need it (webhooks): given by the HTTP edge. The server's own
 * writes (controllers, the garbage collector) carry none, and webhooks do not see them.
 */
export interface AdmissionRequest {
  user: UserInfo;
  /** What webhooks see as `request.options`, per operation (apply that creates is a CREATE). */
  options: Partial<Record<AdmissionOperation, Obj>>;
  /** Aborted when the client goes away. */
  signal?: AbortSignal;
  /** True when the request's path names the object (`/namespaces/{name}`): Namespace requests then carry it as their namespace, as upstream's RequestInfo does. */
  namedPath: boolean;
}

export interface AdmissionPlugin {
  readonly name: string;
  /** Warnings for the response; throws an ApiError to reject. */
  validate(check: AdmissionCheck, request: AdmissionRequest | undefined): Promise<readonly string[]>;
}

export class AdmissionChain {
  private readonly plugins: AdmissionPlugin[];

  constructor(plugins: readonly AdmissionPlugin[] = []) {
    this.plugins = [...plugins];
  }

  /** Appends a plugin (the assembly adds the webhooks once their configurations are followed). */
  add(plugin: AdmissionPlugin): void {
    this.plugins.push(plugin);
  }

  get names(): string[] {
    return this.plugins.map((p) => p.name);
  }

  /** Runs every plugin in order; resolves with their warnings, or throws the first rejection carrying the warnings so far. */
  async admit(check: AdmissionCheck, request: AdmissionRequest | undefined): Promise<string[]> {
    const warnings: string[] = [];
    for (const plugin of this.plugins) {
      try {
        warnings.push(...(await plugin.validate(check, request)));
      } catch (e) {
        if (e instanceof ApiError) e.warnings.unshift(...warnings);
        throw e;
      }
    }
    return warnings;
  }
}
