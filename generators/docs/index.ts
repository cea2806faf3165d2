// The API reference site: static HTML, one stylesheet and one small script, built from the Model
// alone (any spec in this format), deterministic, no external resources. buildDocsSite gives the
// files relative to the site root; docsGenerator places them under out/docs in the pipeline.
import type { Model } from '../model/model.ts';
import type { Generator, OutputFile } from '../output.ts';
import { appearsInIndex } from './appears-in.ts';
import { fieldTree } from './field-model.ts';
import type { TreeContext } from './field-tree.ts';
import { indexPage } from './index-page.ts';
import { kindPage } from './kind-page.ts';
import { docsScript } from './script.ts';
import { searchIndex, searchIndexScript } from './search-index.ts';
import { DEFAULT_JSON_SCHEMA_BASE, kindPagePath } from './site-paths.ts';
import { docsCss } from './styles.ts';

export interface DocsSiteOptions {
  /**
   * Where the JSON Schema files (`<group>/<kind>_<version>.json`) are, relative to the site root or
   * as an absolute URL. Default `../jsonschema` (out/jsonschema beside out/docs).
   */
  jsonSchemaBase?: string;
}

export function buildDocsSite(model: Model, options: DocsSiteOptions = {}): OutputFile[] {
  const jsonSchemaBase = options.jsonSchemaBase ?? DEFAULT_JSON_SCHEMA_BASE;
  const gates = new Map(model.featureGates.map((g) => [g.name, g]));
  const appearsIn = appearsInIndex(model);
  const trees = model.resources.map((resource) => ({ resource, fields: fieldTree(model, resource.shape) }));
  const files: OutputFile[] = [
    { path: 'index.html', content: indexPage(model) },
    { path: 'docs.css', content: docsCss },
    { path: 'docs.js', content: docsScript },
    { path: 'search-index.js', content: searchIndexScript(searchIndex(model, trees)) },
  ];
  for (const { resource, fields } of trees) {
    const ctx: TreeContext = { model, gates, appearsIn, kind: resource.kind };
    files.push({ path: kindPagePath(resource), content: kindPage({ ctx, resource, fields, jsonSchemaBase }) });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The pipeline's docs generator: the site under out/docs. */
export const docsGenerator: Generator = {
  name: 'docs',
  generate(model: Model): OutputFile[] {
    return buildDocsSite(model).map((f) => ({ path: `docs/${f.path}`, content: f.content }));
  },
};
