// A kind served in several versions (`Widget` in v1 and v1alpha1): the generators key modules and
// types by kind, so a project with such kinds is generated per version. Each version's Model holds that
// version's resources, with each resource's schema (`shape: WidgetV1alpha1`) under the kind's name.
import type { Schema } from '../../runtime/schema/types.ts';
import type { Model, Shape } from '../model/model.ts';

/** True when some kind of some group is served in more than one version. */
export function hasMultiVersionKinds(model: Model): boolean {
  const seen = new Set<string>();
  for (const r of model.resources) {
    const key = `${r.group}/${r.kind}`;
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}

function renameRefs(node: unknown, renames: Map<string, string>): unknown {
  if (Array.isArray(node)) return node.map((x) => renameRefs(x, renames));
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(Object.entries(node).map(([k, v]) => {
    if (k === '$ref' && typeof v === 'string') {
      const name = v.replace('#/components/schemas/', '');
      return [k, renames.has(name) ? `#/components/schemas/${renames.get(name)}` : v];
    }
    return [k, renameRefs(v, renames)];
  }));
}

/** One Model per version name, sorted by version; in each, a resource's shape is named as its kind. */
export function modelsByVersion(model: Model): Array<{ version: string; model: Model }> {
  const versions = [...new Set(model.resources.map((r) => r.version))].sort();
  return versions.map((version) => {
    const resources = model.resources.filter((r) => r.version === version);
    // This version's schema takes the kind's name; another version's schema of that name steps aside.
    const renames = new Map(resources.filter((r) => r.shape !== r.kind).map((r) => [r.shape, r.kind]));
    const displaced = new Set(renames.values());
    const shapes = new Map<string, Shape>();
    for (const [name, shape] of model.shapes) {
      if (displaced.has(name) && !renames.has(name)) continue;
      const renamed = renames.get(name) ?? name;
      shapes.set(renamed, { ...shape, name: renamed, schema: renameRefs(shape.schema, renames) as Schema });
    }
    return {
      version,
      model: {
        ...model,
        groups: model.groups.filter((g) => g.versions.includes(version)).map((g) => ({ group: g.group, versions: [version] })),
        shapes: new Map([...shapes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
        resources: resources.map((r) => ({ ...r, shape: r.kind })),
      },
    };
  });
}
