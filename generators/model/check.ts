// Semantic checks of the loaded spec beyond parsing and $ref resolution: every problem names
// the spec file and the path inside it.
import type { Schema } from '../../runtime/schema/types.ts';
import type { LoadedSpec } from './load.ts';
import { SpecError, formatPath, type SpecProblem } from './spec-error.ts';
import { checkRuleSpec } from '../rules.ts';
import { compileSchemaCode, SchemaCompileError } from '../../runtime/schema/index.ts';
import { builtinCelRuleEngine } from '../../runtime/cel/index.ts';

type Path = Array<string | number>;

const KNOWN_EXTENSIONS = new Set([
  'x-cluster-list-type', 'x-cluster-list-map-keys', 'x-cluster-map-type', 'x-cluster-patch-strategy',
  'x-cluster-patch-merge-key', 'x-cluster-int-or-string', 'x-cluster-preserve-unknown-fields',
  'x-cluster-embedded-resource', 'x-cluster-validations', 'x-cluster-rules', 'x-cluster-immutable',
  'x-cluster-feature-gate', 'x-cluster-deprecated', 'x-cluster-source', 'x-cluster-vendor-label',
  'x-cluster-behavior-default', 'x-cluster-write-only', 'x-cluster-group-version-kind',
]);

export function checkModel(spec: LoadedSpec): void {
  const { model } = spec;
  const problems: SpecProblem[] = [];
  const gates = new Set(model.featureGates.map((g) => g.name));
  const resolve = (s: Schema): Schema => (s.$ref ? model.shapes.get(s.$ref.replace('#/components/schemas/', ''))?.schema ?? s : s);

  for (const shape of model.shapes.values()) {
    const report = (path: Path, message: string): void => {
      const full = ['components', 'schemas', shape.name, ...path];
      problems.push({ file: shape.file, path: formatPath(full), message, line: spec.lineOf(shape.file, full) });
    };
    visitSchema(shape.schema, [], (node, path) => {
      for (const key of Object.keys(node)) {
        if (key.startsWith('x-') && !KNOWN_EXTENSIONS.has(key)) report([...path, key], `unknown extension ${key}`);
      }
      const props = resolve(node).properties ?? {};
      for (const req of node.required ?? []) {
        if (!(req in props)) report([...path, 'required'], `required field ${req} is not a property`);
      }
      const gate = node['x-cluster-feature-gate'];
      if (gate !== undefined && !gates.has(gate)) report([...path, 'x-cluster-feature-gate'], `unknown feature gate ${gate} (api.yaml lists the gates)`);
      if (node['x-cluster-list-type'] !== undefined && node.type !== 'array') report([...path, 'x-cluster-list-type'], 'only lists (type: array) have a list type');
      if (node['x-cluster-list-type'] === 'map') {
        const keys = node['x-cluster-list-map-keys'];
        const item = node.items ? resolve(node.items) : undefined;
        if (!keys?.length) report([...path, 'x-cluster-list-map-keys'], 'a map list needs x-cluster-list-map-keys');
        else for (const k of keys) if (!item?.properties?.[k]) report([...path, 'x-cluster-list-map-keys'], `map key ${k} is not a property of the items`);
      }
      if (node.enum !== undefined && node.type === 'string' && node.enum.some((v) => typeof v !== 'string')) {
        report([...path, 'enum'], 'enum values of a string field must be strings');
      }
      (node['x-cluster-rules'] ?? []).forEach((rule, i) => {
        const error = checkRuleSpec(rule, node, resolve);
        if (error) report([...path, 'x-cluster-rules', i], error);
      });
    });
  }
  for (const r of model.resources) {
    if (!model.groups.some((g) => g.group === r.group && g.versions.includes(r.version))) {
      problems.push({ file: r.file, path: 'x-cluster-resource.group', message: `${r.group}/${r.version} is not a group version of api.yaml` });
    }
  }
  if (!problems.length) problems.push(...compileEveryShape(spec));
  if (problems.length) throw new SpecError(problems);
}

/**
 * Compiles every shape with the runtime's schema compiler and CEL layer, so a rule that does not
 * compile, or whose estimated cost is over the budget a CRD would have, fails generation with the
 * file and path of the rule.
 */
function compileEveryShape(spec: LoadedSpec): SpecProblem[] {
  const { model } = spec;
  const definitions = Object.fromEntries([...model.shapes].map(([name, shape]) => [name, shape.schema]));
  const featureGates = Object.fromEntries(model.featureGates.map((g) => [g.name, g.default]));
  // Fast path: one compile of a root naming every shape compiles each definition once.
  const all: Schema = { type: 'object', properties: Object.fromEntries([...model.shapes.keys()].map((n) => [n, { $ref: `#/components/schemas/${n}` }])) };
  try {
    compileSchemaCode(all, { definitions, featureGates, cel: builtinCelRuleEngine });
    return [];
  } catch (err) {
    if (!(err instanceof SchemaCompileError)) throw err;
  }
  // Slow path, only when something is wrong: shape by shape, to report every broken shape.
  const problems: SpecProblem[] = [];
  const seen = new Set<string>();
  for (const name of model.shapes.keys()) {
    try {
      compileSchemaCode({ $ref: `#/components/schemas/${name}` }, { definitions, featureGates, cel: builtinCelRuleEngine });
    } catch (err) {
      if (!(err instanceof SchemaCompileError)) throw err;
      const pointer = err.path.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
      const shape = model.shapes.get(pointer[2]) ?? model.shapes.get(name)!;
      const path: Path = pointer[0] === 'components' ? pointer.map((p) => (/^\d+$/.test(p) ? Number(p) : p)) : ['components', 'schemas', name];
      const message = err.message.startsWith(`${err.path}: `) ? err.message.slice(err.path.length + 2) : err.message;
      const key = `${shape.file}|${formatPath(path)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      problems.push({ file: shape.file, path: formatPath(path), message, line: spec.lineOf(shape.file, path) });
    }
  }
  return problems;
}

/** Visits a schema node and every schema nested in it (not following $ref). */
export function visitSchema(node: Schema, path: Path, visit: (node: Schema, path: Path) => void): void {
  visit(node, path);
  for (const [k, v] of Object.entries(node.properties ?? {})) visitSchema(v, [...path, 'properties', k], visit);
  if (node.items) visitSchema(node.items, [...path, 'items'], visit);
  if (node.additionalProperties && typeof node.additionalProperties === 'object') {
    visitSchema(node.additionalProperties, [...path, 'additionalProperties'], visit);
  }
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) node[key]?.forEach((s, i) => visitSchema(s, [...path, key, i], visit));
  if (node.not) visitSchema(node.not, [...path, 'not'], visit);
}
