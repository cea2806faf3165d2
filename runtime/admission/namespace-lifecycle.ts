// Upstream's NamespaceLifecycle admission plugin: nothing is created in a namespace that does not
// exist (404 `namespaces "x" not found`) or is being terminated (403).

import { metaOf } from '../api/object.ts';
import { ApiError } from '../errors/api-error.ts';
import type { AdmissionCheck, AdmissionPlugin } from './chain.ts';

/** What admission knows of namespaces (runtime/registry/namespace-index.ts keeps it from an informer). */
export interface NamespaceLookup {
  /** The namespace's phase; undefined when it does not exist. */
  phase(name: string): Promise<'Active' | 'Terminating' | undefined>;
  /** Its labels; undefined when it does not exist. */
  labels(name: string): Promise<Record<string, string> | undefined>;
}

export class NamespaceLifecycle implements AdmissionPlugin {
  readonly name = 'NamespaceLifecycle';

  constructor(private readonly namespaces: NamespaceLookup) {}

  async validate(check: AdmissionCheck): Promise<readonly string[]> {
    if (check.operation !== 'CREATE' || !check.resource.namespaced || !check.namespace) return [];
    const phase = await this.namespaces.phase(check.namespace);
    if (phase === undefined) throw ApiError.notFound({ group: '', plural: 'namespaces' }, check.namespace);
    if (phase === 'Terminating') {
      const name = (check.object && metaOf(check.object).name) || check.name;
      throw ApiError.forbidden(
        { group: check.resource.group, plural: check.resource.plural },
        name,
        `unable to create new content in namespace ${check.namespace} because it is being terminated`,
      );
    }
    return [];
  }
}
