// The index: every kind by group and version (with its scope and short names), a lookup form by
// apiVersion and kind, and the feature gates that fields may name.
import { groupVersion, type Model, type Resource } from '../model/model.ts';
import { esc, page } from './html.ts';
import { groupDir, kindPagePath } from './site-paths.ts';

function kindRows(kinds: Resource[]): string {
  return kinds
    .map((r) => `<tr><td><a href="${esc(kindPagePath(r))}">${esc(r.kind)}</a></td><td><code>${esc(groupVersion(r))}</code></td><td>${r.scope}</td><td>${r.shortNames.map(esc).join(' ')}</td></tr>`)
    .join('');
}

export function indexPage(model: Model): string {
  const sections: string[] = [];
  for (const g of model.groups) {
    for (const version of g.versions) {
      const kinds = model.resources.filter((r) => r.group === g.group && r.version === version);
      if (!kinds.length) continue;
      const gv = groupVersion({ group: g.group, version });
      sections.push(`<h3 id="${esc(gv)}">${esc(g.group || 'core')} / ${esc(version)}</h3>
<table><thead><tr><th>kind</th><th>apiVersion</th><th>scope</th><th>short names</th></tr></thead><tbody>${kindRows(kinds)}</tbody></table>`);
    }
  }
  const gates = model.featureGates
    .map((f) => `<tr><td><code>${esc(f.name)}</code></td><td>${f.stage}</td><td>${f.default ? 'on' : 'off'}</td></tr>`)
    .join('');
  const groups = model.groups.map((g) => `<a href="#${esc(groupVersion({ group: g.group, version: g.versions[0] ?? '' }))}">${esc(groupDir(g.group))}</a>`).join(' · ');
  const body = `<h1>API reference</h1>
<p>${model.resources.length} kinds in ${model.groups.length} groups. Search above for a kind or any field path, or look a kind up by apiVersion and kind.</p>
<form id="lookup" method="get" action="index.html"><label>apiVersion <input name="apiVersion" placeholder="v1"></label> <label>kind <input name="kind" placeholder="PersistentVolume" required></label> <button type="submit">Look up</button></form>
<ul id="lookup-result"></ul>
<p>Groups: ${groups}</p>
<h2 id="kinds">Kinds by group and version</h2>
${sections.join('\n')}
${gates ? `<h2 id="feature-gates">Feature gates</h2>\n<table><thead><tr><th>gate</th><th>stage</th><th>default</th></tr></thead><tbody>${gates}</tbody></table>` : ''}
`;
  return page({ title: 'API reference', root: '', body, eagerSearchIndex: true });
}
