// CustomResourceDefinition manifests (apiextensions.k8s.io/v1 or apiextensions.cluster.io/v1) as
// Models the generators read: one Model per version name, so that each kind appears once per Model.
// Each CRD is checked as the server checks it first; a broken one fails with its file, line and field.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Document } from 'yaml';
import type { Schema } from '../../runtime/schema/types.ts';
import type { CRDVersion, CustomResourceDefinition } from '../../runtime/crd/types.ts';
import { validateCRD, type CRDObjectValidator } from '../../runtime/crd/validate-crd.ts';
import { asClusterCrd, isCrdObject } from '../../runtime/validate/crd-flavor.ts';
import { parseManifests } from '../../runtime/validate/documents.ts';
import { collectInputs } from '../../runtime/validate/inputs.ts';
import { nodeAt, parseFieldPath, positionOf } from '../../runtime/validate/positions.ts';
import type { LoadedSpec } from '../model/load.ts';
import type { Model, Resource, Shape } from '../model/model.ts';
import { SpecError, type SpecProblem } from '../model/spec-error.ts';
import { platformLibrary } from './platform-library.ts';

interface LoadedCrd {
  file: string;
  line: number;
  crd: CustomResourceDefinition;
}

function readCrds(root: string, dir: string, crdObjectRules: CRDObjectValidator): LoadedCrd[] {
  const problems: SpecProblem[] = [];
  const crds: LoadedCrd[] = [];
  for (const input of collectInputs([dir])) {
    const file = relative(root, input.path);
    if (input.kind !== 'file') {
      if (input.kind === 'problem') problems.push({ file, path: '', message: input.message });
      continue;
    }
    const parsed = parseManifests(readFileSync(input.abs, 'utf8'));
    for (const d of parsed.documents) {
      if (d.syntaxError) {
        problems.push({ file, path: `(document ${d.index})`, message: `YAML: ${d.syntaxError.message}`, line: d.syntaxError.line });
        continue;
      }
      if (!isCrdObject(d.value)) continue;
      const crd = asClusterCrd(d.value);
      const line = (field: string): number => positionOf(nodeAt(d.doc as Document, [], parseFieldPath(field)), parsed.lines, d.start).line;
      for (const e of validateCRD(crd, { objectRules: crdObjectRules })) problems.push({ file, path: e.field, message: e.message, line: line(e.field) });
      crds.push({ file, line: line(''), crd: crd as unknown as CustomResourceDefinition });
    }
  }
  if (problems.length) throw new SpecError(problems);
  if (!crds.length) throw new SpecError([{ file: relative(root, dir) || '.', path: '', message: 'no CustomResourceDefinition manifests in this folder' }]);
  return crds;
}

const packageOf = (group: string, version: string): string => [...group.split('.').reverse(), version].join('.').replace(/[^a-z0-9.]/gi, '');

function maturityOf(version: string): Resource['maturity'] {
  return /alpha/.test(version) ? 'alpha' : /beta/.test(version) ? 'beta' : 'stable';
}

/** The version's schema as a shape: metadata typed as ObjectMeta when the CRD leaves it a plain object (as CRDs must). */
function kindSchema(v: CRDVersion): Schema {
  const schema = structuredClone(v.schema?.openAPIV3Schema ?? { type: 'object', 'x-cluster-preserve-unknown-fields': true }) as Schema;
  const meta = schema.properties?.metadata;
  if (schema.properties && (!meta || !meta.properties)) {
    schema.properties.metadata = { $ref: '#/components/schemas/ObjectMeta', description: meta?.description ?? 'Standard object metadata.' };
  }
  return schema;
}

function resourceOf(c: LoadedCrd, v: CRDVersion): Resource {
  const { crd } = c;
  const names = crd.spec.names;
  const kind = names.kind ?? '';
  return {
    kind,
    group: crd.spec.group,
    version: v.name,
    listKind: names.listKind || `${kind}List`,
    plural: names.plural ?? '',
    singular: names.singular || kind.toLowerCase(),
    shortNames: [...(names.shortNames ?? [])],
    categories: [...(names.categories ?? [])],
    scope: crd.spec.scope === 'Cluster' ? 'Cluster' : 'Namespaced',
    subresources: v.subresources?.status ? ['status'] : [],
    deleteReturns: 'Object',
    maturity: maturityOf(v.name),
    generation: true,
    updateRequiresResourceVersion: true,
    nameSyntax: 'dns1123Subdomain',
    fieldSelectors: (v.selectableFields ?? []).map((f) => f.jsonPath.replace(/^\./, '')),
    printerColumns: (v.additionalPrinterColumns ?? []).map((col) => ({
      name: col.name, type: col.type, jsonPath: col.jsonPath, description: col.description ?? '',
      ...(col.format ? { format: col.format } : {}), ...(col.priority !== undefined ? { priority: col.priority } : {}),
    })),
    file: c.file,
    shape: kind,
  };
}

export interface VersionModel {
  version: string;
  spec: LoadedSpec;
}

/**
 * One checked Model per version name found in the CRDs (served versions only). `crdObjectRules`: the
 * generated CustomResourceDefinition validator (the CLI hands in out/'s).
 */
export function modelsFromCrds(root: string, dir: string, crdObjectRules: CRDObjectValidator): VersionModel[] {
  const crds = readCrds(root, dir, crdObjectRules);
  const lib = platformLibrary(root);
  const byVersion = new Map<string, Array<{ c: LoadedCrd; v: CRDVersion }>>();
  for (const c of crds) for (const v of c.crd.spec.versions ?? []) if (v.served) byVersion.set(v.name, [...(byVersion.get(v.name) ?? []), { c, v }]);
  return [...byVersion.keys()].sort().map((version) => {
    const entries = byVersion.get(version)!;
    const shapes = new Map<string, Shape>(lib.shapes.map((s) => [s.name, structuredClone(s)]));
    const problems: SpecProblem[] = [];
    for (const { c, v } of entries) {
      const r = resourceOf(c, v);
      if (shapes.has(r.kind)) problems.push({ file: c.file, path: 'spec.names.kind', message: `kind ${r.kind} is defined twice in version ${version} (or is a name of the platform's meta shapes)`, line: c.line });
      shapes.set(r.kind, { name: r.kind, package: packageOf(r.group, version), file: c.file, schema: kindSchema(v) });
    }
    if (problems.length) throw new SpecError(problems);
    const resources = entries.map(({ c, v }) => resourceOf(c, v)).sort((a, b) => a.group.localeCompare(b.group) || a.kind.localeCompare(b.kind));
    const groups = [...new Set(resources.map((r) => r.group))].sort().map((group) => ({ group, versions: [version] }));
    const model: Model = {
      platform: lib.platform,
      groups,
      featureGates: [],
      parameters: lib.parameters,
      operationParameters: lib.operationParameters,
      shapes: new Map([...shapes.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      resources,
    };
    const lineOfFile = new Map(crds.map((c) => [c.file, c.line]));
    return { version, spec: { model, lineOf: (file: string) => lineOfFile.get(file) } };
  });
}
