// The API reference site generator (generators/docs): per kind, the page carries what the brief
// lists (apiVersion, scope, short names, operations, every field with an anchor, the JSON Schema
// link, a YAML skeleton that parses to the kind); chosen fields carry their facts; the site
// references nothing outside itself and is deterministic.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildDocsSite } from '../../generators/docs/index.ts';
import { fieldTree, walkFields } from '../../generators/docs/field-model.ts';
import { kindPagePath } from '../../generators/docs/site-paths.ts';
import { SEARCH_INDEX_GLOBAL, type SearchIndex } from '../../generators/docs/search-index.ts';
import { loadSpec } from '../../generators/model/load.ts';
import { groupVersion, type Model } from '../../generators/model/model.ts';
import { operationsOf } from '../../generators/model/operations.ts';
import type { OutputFile } from '../../generators/output.ts';
import { META_SHAPES_FILE } from '../../generators/project/platform-library.ts';

const root = join(import.meta.dirname, '..', '..');
let model: Model;
let files: OutputFile[];
const file = (path: string): string => {
  const f = files.find((x) => x.path === path);
  if (!f) throw new Error(`no ${path} in the site`);
  return f.content;
};
const unescape = (s: string): string =>
  s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

/** The text of one field's own block (its header, description, facts and rules; not its children). */
function fieldText(page: string, path: string): string {
  const start = page.indexOf(`<div class="f" id="${path}">`);
  if (start < 0) throw new Error(`no field ${path}`);
  const ends = [page.indexOf('<details', start), page.indexOf('<div class="f"', start + 5)].filter((i) => i > 0);
  const block = page.slice(start, ends.length ? Math.min(...ends) : undefined);
  return unescape(block.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ');
}

beforeAll(async () => {
  model = (await loadSpec(root)).model;
  files = buildDocsSite(model);
});

describe('docs site: every kind', () => {
  it('has one page per kind plus the index, stylesheet, script and search index', () => {
    expect(files.map((f) => f.path).filter((p) => !p.includes('/')).sort()).toEqual(['docs.css', 'docs.js', 'index.html', 'search-index.js']);
    expect(files.filter((f) => f.path.endsWith('.html') && f.path.includes('/')).length).toBe(model.resources.length);
  });

  it.each(['PersistentVolume', 'PersistentVolumeClaim', 'ConfigMap', 'CSIDriver', 'StorageClass', 'CustomResourceDefinition', 'ValidatingWebhookConfiguration', 'StorageVersionMigration'])(
    '%s: facts, operations, anchors, JSON Schema link, YAML skeleton',
    (kind) => {
      const r = model.resources.find((x) => x.kind === kind);
      if (!r) throw new Error(`no kind ${kind} in the spec`);
      const page = file(kindPagePath(r));
      const text = unescape(page);
      expect(text).toContain(`<h1>${r.kind}</h1>`);
      expect(text).toContain(`<dt>apiVersion</dt><dd><code>${groupVersion(r)}</code>`);
      expect(text).toContain(`<dt>scope</dt><dd>${r.scope}</dd>`);
      for (const s of r.shortNames) expect(text).toContain(`<code>${s}</code>`);
      for (const op of operationsOf(model, r)) expect(text).toContain(`<td><code>${op.method}</code></td><td><code>${op.path}</code></td>`);
      for (const c of r.printerColumns) expect(text).toContain(`<td>${c.name.toUpperCase()}</td><td><code>${c.jsonPath}</code></td>`);
      // out/jsonschema's layout (kubeconform's): core kinds at the top, others under their group
      const schemaFile = `${r.group === '' ? '' : `${r.group}/`}${r.kind.toLowerCase()}_${r.version}.json`;
      expect(page).toContain(`href="../../jsonschema/${schemaFile}"`);
      for (const node of walkFields(fieldTree(model, r.shape))) {
        expect(page, node.path).toContain(`<div class="f" id="${node.path}">`);
        expect(page, node.path).toContain(`href="#${node.path}"`);
      }
      const yamlText = unescape(/<pre class="yaml">([\s\S]*?)<\/pre>/.exec(page)?.[1] ?? '');
      const example = parse(yamlText) as Record<string, unknown>;
      expect(example.apiVersion).toBe(groupVersion(r));
      expect(example.kind).toBe(r.kind);
      expect((example.metadata as Record<string, unknown>).namespace).toBe(r.scope === 'Namespaced' ? 'default' : undefined);
      expect(example).not.toHaveProperty('status');
      expect(text).toContain('data-expand="open"');
    },
  );
});

// Fields whose facts the page must show, each with the text expected in the field's own block.
const FIELD_FACTS: Array<{ kind: string; path: string; expect: string[]; not?: string[] }> = [
  { kind: 'PersistentVolume', path: 'spec.csi.volumeHandle', expect: ['volumeHandle string required', 'spec.csi.volumeHandle', 'CreateVolume'] },
  { kind: 'PersistentVolume', path: 'spec.csi.driver', expect: ['required', 'limits at most 63 characters', 'cel a lowercase RFC 1123 subdomain', "self.lowerAscii().matches("] },
  { kind: 'PersistentVolume', path: 'spec.csi.readOnly', expect: ['if unset false (applied by its consumer, not stored)'], not: ['required'] },
  { kind: 'PersistentVolume', path: 'spec.volumeMode', expect: ['immutable'] },
  { kind: 'PersistentVolume', path: 'metadata.selfLink', expect: ['deprecated'] },
  { kind: 'StorageClass', path: 'volumeBindingMode', expect: ['immutable', 'gated', 'default "Immediate"', 'values "Immediate" "WaitForFirstConsumer"', 'feature gate VolumeScheduling (stable, on by default)', 'self == oldSelf', 'message field is immutable'] },
  { kind: 'CSIDriver', path: 'spec.attachRequired', expect: ['boolean immutable', 'default true', 'Immutable: it cannot be changed after creation.'] },
  { kind: 'Secret', path: 'metadata.ownerReferences', expect: ['[]OwnerReference', 'list type map keyed by uid', 'patch strategy merge on uid', 'appears in OwnerReference, also in ConfigMap'] },
  { kind: 'PersistentVolumeClaim', path: 'spec.accessModes', expect: ['[]string', 'item values "ReadOnlyMany" "ReadWriteMany" "ReadWriteOnce" "ReadWriteOncePod"', 'list type atomic', 'nonEmpty Required and must not be empty'] },
  { kind: 'PersistentVolumeClaim', path: 'spec.dataSourceRef', expect: ['gated', 'feature gate'] },
  { kind: 'CustomResourceDefinition', path: 'spec.versions[*].schema.openAPIV3Schema.properties', expect: ['map[string]JSONSchemaProps', 'The same shape as spec.versions[*].schema.openAPIV3Schema , not expanded again.'] },
];

describe('docs site: field facts', () => {
  it.each(FIELD_FACTS)('$kind $path', ({ kind, path, expect: wanted, not }) => {
    const r = model.resources.find((x) => x.kind === kind);
    if (!r) throw new Error(`no kind ${kind} in the spec`);
    const text = fieldText(file(kindPagePath(r)), path);
    for (const w of wanted) expect(text).toContain(w);
    for (const n of not ?? []) expect(text).not.toContain(n);
  });
});

describe('docs site: search index and index page', () => {
  it('indexes every kind and every field path with the page to open', () => {
    const script = file('search-index.js');
    const prefix = `window.${SEARCH_INDEX_GLOBAL}=`;
    expect(script.startsWith(prefix)).toBe(true);
    const index = JSON.parse(script.slice(prefix.length).trim().replace(/;$/, '')) as SearchIndex;
    expect(index.k.map((k) => `${k[0]} ${k[1]}`)).toEqual(model.resources.map((r) => `${groupVersion(r)} ${r.kind}`));
    const pv = index.k.findIndex((k) => k[1] === 'PersistentVolume');
    expect(index.k[pv][2]).toBe('core/persistentvolume_v1.html');
    expect(index.f).toContainEqual([pv, 'spec.csi.volumeHandle', 'string']);
    const total = model.resources.reduce((n, r) => n + [...walkFields(fieldTree(model, r.shape))].length, 0);
    expect(index.f.length).toBe(total);
  });

  it('lists every kind by group and version, with the lookup form', () => {
    const index = unescape(file('index.html'));
    for (const r of model.resources) expect(index).toContain(`<a href="${kindPagePath(r)}">${r.kind}</a></td><td><code>${groupVersion(r)}</code>`);
    expect(index).toContain('<form id="lookup" method="get" action="index.html">');
    expect(index).toContain('<script src="search-index.js"></script>');
  });
});

describe('docs site: self-contained and deterministic', () => {
  it('references no other origin (no URLs but data: in src, href, action, url() or @import)', () => {
    for (const f of files) {
      // data: URLs are inline (the empty favicon that spares the browser a /favicon.ico request).
      expect(f.content, f.path).not.toMatch(/(?:src|href|action)="(?!data:)(?:[a-z]+:|\/\/)/i);
      expect(f.content, f.path).not.toMatch(/@import|url\(/);
    }
  });

  it('gives the same bytes twice', () => {
    expect(buildDocsSite(model)).toEqual(files);
  });

  it('links the JSON Schemas wherever the caller keeps them', () => {
    const r = model.resources.find((x) => x.kind === 'CSIDriver');
    if (!r) throw new Error('no CSIDriver');
    const page = buildDocsSite(model, { jsonSchemaBase: 'https://schemas.example.com/v1/' }).find((f) => f.path === kindPagePath(r))?.content;
    expect(page).toContain('href="https://schemas.example.com/v1/storage.cluster.io/csidriver_v1.json"');
  });
});

describe('docs site: a user spec (examples/widgets)', () => {
  it('gives every kind of another group a page with its fields, operations and YAML skeleton', async () => {
    const widgets = (await loadSpec(root, { specDir: join(root, 'examples', 'widgets', 'spec'), libraryFiles: [META_SHAPES_FILE] })).model;
    const site = buildDocsSite(widgets);
    expect(widgets.resources.length).toBeGreaterThan(0);
    for (const r of widgets.resources) {
      const page = site.find((f) => f.path === kindPagePath(r))?.content ?? '';
      expect(page, r.kind).toContain(`<dt>apiVersion</dt><dd><code>${groupVersion(r)}</code>`);
      for (const op of operationsOf(widgets, r)) expect(page).toContain(`<code>${op.path}</code>`);
      for (const node of walkFields(fieldTree(widgets, r.shape))) expect(page).toContain(`<div class="f" id="${node.path}">`);
      const example = parse(unescape(/<pre class="yaml">([\s\S]*?)<\/pre>/.exec(page)?.[1] ?? '')) as Record<string, unknown>;
      expect(example.kind).toBe(r.kind);
    }
    expect(site.find((f) => f.path === 'index.html')?.content).toContain(widgets.resources[0].group);
  });
});
