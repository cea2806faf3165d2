// One page per kind: what it is (apiVersion, scope, short names, ...), its operations with method
// and path, its field tree, the rules on the whole object, an example YAML skeleton and the link to
// its JSON Schema.
import { groupVersion, type Model, type Resource } from '../model/model.ts';
import { operationsOf } from '../model/operations.ts';
import { resolveNode, type FieldNode } from './field-model.ts';
import { prose, renderFieldTree, renderRules, type TreeContext } from './field-tree.ts';
import { esc, page } from './html.ts';
import { rulesOf } from './rules-in-words.ts';
import { jsonSchemaHref, KIND_PAGE_ROOT } from './site-paths.ts';
import { yamlSkeleton } from './yaml-skeleton.ts';

export interface KindPageInput {
  ctx: TreeContext;
  resource: Resource;
  fields: FieldNode[];
  jsonSchemaBase: string;
}

function facts(r: Resource, ctx: TreeContext, jsonSchemaBase: string): string {
  const appears = ctx.appearsIn.get(r.shape);
  const inShapes = (appears?.shapes ?? []).map(esc);
  const rows: Array<[string, string]> = [
    ['apiVersion', `<code>${esc(groupVersion(r))}</code>`],
    ['group', r.group ? `<code>${esc(r.group)}</code>` : 'core (empty group name)'],
    ['scope', r.scope],
    ['short names', r.shortNames.length ? r.shortNames.map((s) => `<code>${esc(s)}</code>`).join(' ') : 'none'],
    ['resource', `<code>${esc(r.plural)}</code> (singular <code>${esc(r.singular)}</code>)`],
  ];
  if (r.categories.length) rows.push(['categories', r.categories.map(esc).join(', ')]);
  rows.push(['subresources', r.subresources.length ? r.subresources.map((s) => `<code>${esc(s)}</code>`).join(' ') : 'none']);
  if (r.omitVerbs?.length) rows.push(['not served', r.omitVerbs.map((v) => `<code>${esc(v)}</code>`).join(' ')]);
  rows.push(['maturity', r.maturity]);
  rows.push(['appears in', [`<code>${esc(r.listKind)}</code> (its list)`, ...inShapes].join(', ')]);
  rows.push(['JSON Schema', `<a href="${esc(jsonSchemaHref(r, jsonSchemaBase))}">${esc(`${r.kind.toLowerCase()}_${r.version}.json`)}</a>`]);
  return `<dl class="meta">${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>`;
}

function operations(model: Model, r: Resource): string {
  const rows = operationsOf(model, r).map(
    (op) => `<tr><td><code>${op.method}</code></td><td><code>${esc(op.path)}</code></td><td>${esc(op.action)}${op.subresource ? ` ${esc(op.subresource)}` : ''}</td><td>${prose(op.description)}</td></tr>`,
  );
  return `<table class="ops"><thead><tr><th>method</th><th>path</th><th>action</th><th>what it does</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The columns `kubectl get` prints for the kind (after NAME), `-o wide` ones marked. */
function printerColumns(r: Resource): string {
  if (!r.printerColumns.length) return '';
  const rows = r.printerColumns.map(
    (c) => `<tr><td>${esc(c.name.toUpperCase())}</td><td><code>${esc(c.jsonPath)}</code></td><td>${c.priority ? '-o wide' : ''}</td><td>${prose(c.description)}</td></tr>`,
  );
  return `<h2 id="columns">kubectl get columns</h2>\n<table><thead><tr><th>column</th><th>value</th><th>shown</th><th>what it shows</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

export function kindPage(input: KindPageInput): string {
  const { ctx, resource: r, fields } = input;
  const model = ctx.model;
  const root = resolveNode(model, model.shapes.get(r.shape)?.schema ?? {}).schema;
  const objectRules = renderRules(rulesOf(root));
  const body = `<nav class="crumbs"><a href="${KIND_PAGE_ROOT}index.html">Index</a> / <a href="${KIND_PAGE_ROOT}index.html#${esc(groupVersion(r))}">${esc(groupVersion(r))}</a></nav>
<h1>${esc(r.kind)}</h1>
<p class="toc"><a href="#operations">Operations</a> · <a href="#fields">Fields</a>${objectRules ? ' · <a href="#object-rules">Rules on the whole object</a>' : ''} · <a href="#example">Example YAML</a></p>
${root.description ? `<p>${prose(root.description)}</p>` : ''}
${facts(r, ctx, input.jsonSchemaBase)}
<h2 id="operations">Operations</h2>
${operations(model, r)}
<h2 id="fields">Fields</h2>
<div class="tools"><button type="button" data-expand="open">Expand all</button> <button type="button" data-expand="close">Collapse all</button></div>
${renderFieldTree(ctx, fields)}
${objectRules ? `<h2 id="object-rules">Rules on the whole object</h2>\n${objectRules}` : ''}
${printerColumns(r)}
<h2 id="example">Example YAML</h2>
<pre class="yaml">${esc(yamlSkeleton(model, r))}</pre>
`;
  return page({ title: `${r.kind} (${groupVersion(r)})`, root: KIND_PAGE_ROOT, body });
}
