// The search index: every kind (apiVersion, kind, short names, page) and every field path with its
// type, as a script that sets a global, because pages opened from file:// may not fetch JSON.
import { groupVersion, type Model, type Resource } from '../model/model.ts';
import { walkFields, type FieldNode } from './field-model.ts';
import { typeLabel } from './field-tree.ts';
import { kindPagePath } from './site-paths.ts';

export const SEARCH_INDEX_GLOBAL = 'CLUSTERSPEC_DOCS_INDEX';

export interface SearchIndex {
  /** [apiVersion, kind, page from the site root, short names joined by spaces]. */
  k: Array<[string, string, string, string]>;
  /** [index into k, field path, type]. */
  f: Array<[number, string, string]>;
}

export function searchIndex(model: Model, trees: Array<{ resource: Resource; fields: FieldNode[] }>): SearchIndex {
  const index: SearchIndex = { k: [], f: [] };
  trees.forEach(({ resource: r, fields }, i) => {
    index.k.push([groupVersion(r), r.kind, kindPagePath(r), r.shortNames.join(' ')]);
    for (const node of walkFields(fields)) index.f.push([i, node.path, typeLabel(model, node)]);
  });
  return index;
}

export function searchIndexScript(index: SearchIndex): string {
  return `window.${SEARCH_INDEX_GLOBAL}=${JSON.stringify(index)};\n`;
}
