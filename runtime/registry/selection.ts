// Label and field selection of a list or watch (400 for a selector that does not parse or names a
// field the resource does not offer).

import { metaOf, type Obj } from '../api/object.ts';
import { ApiError } from '../errors/api-error.ts';
import type { ResourceDescriptor } from '../api/resource-descriptor.ts';
import { checkFieldSelector, objectFields, parseFieldSelector, type FieldSelector } from './field-selector.ts';
import { parseLabelSelector, SelectorParseError, type LabelSelector } from './label-selector.ts';
import type { Strategy } from './strategy.ts';

export class Selection {
  private constructor(
    private readonly labels: LabelSelector,
    private readonly fields: FieldSelector,
    private readonly descriptor: ResourceDescriptor,
    private readonly strategy: Strategy,
  ) {}

  static parse(params: { labelSelector?: string; fieldSelector?: string }, descriptor: ResourceDescriptor, strategy: Strategy): Selection {
    try {
      const labels = parseLabelSelector(params.labelSelector ?? '');
      const fields = parseFieldSelector(params.fieldSelector ?? '');
      checkFieldSelector(fields, descriptor.fieldSelectors);
      return new Selection(labels, fields, descriptor, strategy);
    } catch (e) {
      if (e instanceof SelectorParseError) throw ApiError.badRequest(e.message);
      throw e;
    }
  }

  /** True when the selection filters anything out (a filtered list has no remainingItemCount). */
  get filters(): boolean {
    return !this.labels.empty || !this.fields.empty;
  }

  /**
   * True when upstream's store reads a single key for this selection (SelectionPredicate.MatchesSingle
   * and the store's KeyFunc): the field selector pins metadata.name and the key's namespace is known
   * (a cluster-scoped resource, the request's namespace, or one metadata.namespace pins). Such a list
   * has at most one item and never a continue token.
   */
  readsOneKey(namespaced: boolean, namespace: string | undefined): boolean {
    if (this.fields.exactValue('metadata.name') === undefined) return false;
    return !namespaced || !!namespace || this.fields.exactValue('metadata.namespace') !== undefined;
  }

  matches(obj: Obj): boolean {
    if (!this.labels.empty && !this.labels.matches(metaOf(obj).labels)) return false;
    if (!this.fields.empty && !this.fields.matches(this.fieldsOf(obj))) return false;
    return true;
  }

  private fieldsOf(obj: Obj): Record<string, string> {
    const base = objectFields(obj, this.descriptor.fieldSelectors);
    return this.strategy.fieldValues ? { ...base, ...this.strategy.fieldValues(obj) } : base;
  }
}
