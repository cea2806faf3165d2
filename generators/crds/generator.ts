// out/crds: for every resource a CustomResourceDefinition (apiextensions.cluster.io/v1) whose
// openAPIV3Schema is structural and carries the rules as x-cluster-validations CEL.
// The CRDs use a mirror group (<group word>.crd.cluster.io) so they install beside the built-ins.
// out/rules/crd-left-out.json records, per CRD body, every validator rule the body leaves out and
// where it sits in spec/, so a test can attribute a verdict the CRD and the validator disagree on.
import { stringify } from 'yaml';
import type { Model, Resource } from '../model/model.ts';
import type { Generator, OutputFile } from '../output.ts';
import { structuralSchema, type LeftOutWhy, type RuleOrigin, type UnloweredRule } from './structural.ts';

/** One validator rule a CRD body leaves out (out/rules/crd-left-out.json). */
export interface LeftOutRule {
  /** The node in the resource (`.spec.capacity[*]`, `.` for the root): the rule's errors are at or below it. */
  path: string;
  /** The rule kind (`cel`, a declarative kind, `schema` for a subtree kept untyped, `nameSyntax`). */
  rule: string;
  /** The CEL text of a `cel` rule (the lowered text when a declarative rule was lowered, then refused). */
  cel?: string;
  why: Exclude<LeftOutWhy, 'note'>;
  detail: string;
  /** Where the rule is written in spec/ (out/validators/definitions.json holds the same shapes). */
  origin?: RuleOrigin;
}

export interface LeftOutRecord {
  /** The CRD body file under out/. */
  file: string;
  crd: string;
  /** `<group>/<version>/<kind>` of the built-in resource it mirrors. */
  mirrors: string;
  kind: string;
  leftOut: LeftOutRule[];
}

export function mirrorGroup(r: Pick<Resource, 'group'>): string {
  return `${r.group === '' ? 'core' : r.group.split('.')[0]}.crd.cluster.io`;
}

type CrdResult = { manifest: Record<string, unknown>; unlowered: UnloweredRule[] };
const crdCache = new WeakMap<Resource, CrdResult>();

/** The CRD body of a resource (computed once per loaded resource: the CRD and rules-report generators share it). */
export function crdFor(model: Model, r: Resource): CrdResult {
  let cached = crdCache.get(r);
  if (!cached) {
    cached = buildCrd(model, r);
    crdCache.set(r, cached);
  }
  return cached;
}

/** The formats a CRD printer column may carry (apiextensions validation); a built-in's `name` format is not one. */
const CRD_COLUMN_FORMATS = new Set(['int32', 'int64', 'float', 'double', 'byte', 'date', 'date-time', 'password']);

function buildCrd(model: Model, r: Resource): CrdResult {
  const { schema, unlowered } = structuralSchema(model, r.shape, r.nameSyntax);
  const group = mirrorGroup(r);
  // Name is always a CRD's first column; an Age cell is a CRD `date` column.
  const columns = r.printerColumns.filter((c) => !c.count && c.jsonPath !== '.metadata.name').map((c) => ({
    name: c.name,
    type: c.formatter === 'age' ? 'date' : c.type,
    jsonPath: c.jsonPath,
    ...(c.description ? { description: c.description } : {}),
    ...(c.format && CRD_COLUMN_FORMATS.has(c.format) ? { format: c.format } : {}),
    ...(c.priority ? { priority: c.priority } : {}),
  }));
  const manifest = {
    apiVersion: 'apiextensions.cluster.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${r.plural}.${group}`,
      annotations: { 'clusterspec.cluster.io/mirrors': mirrorsOf(r) },
    },
    spec: {
      group,
      names: { kind: r.kind, listKind: r.listKind, plural: r.plural, singular: r.singular, categories: ['clusterspec-mirror'] },
      scope: r.scope,
      versions: [
        {
          name: r.version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: schema },
          ...(r.subresources.includes('status') ? { subresources: { status: {} } } : {}),
          ...(columns.length ? { additionalPrinterColumns: columns } : {}),
        },
      ],
    },
  };
  return { manifest, unlowered };
}

const mirrorsOf = (r: Resource): string => `${r.group ? `${r.group}/` : ''}${r.version}/${r.kind}`;
const crdFile = (r: Resource): string => `crds/${r.plural}.${mirrorGroup(r)}.yaml`;

/** The left-out rules of every CRD body: notes are left out (they check nothing); order is the generator's walk, so stable. */
export function leftOutRecords(model: Model): LeftOutRecord[] {
  return model.resources.map((r) => ({
    file: crdFile(r),
    crd: `${r.plural}.${mirrorGroup(r)}`,
    mirrors: mirrorsOf(r),
    kind: r.kind,
    leftOut: crdFor(model, r).unlowered.flatMap((u): LeftOutRule[] => {
      if (u.why === 'note') return [];
      const cel = u.rule.rule === 'cel' ? String(u.rule.text) : undefined;
      const kind = u.origin?.source === 'x-cluster-rules' && cel !== undefined ? declarativeKind(model, u.origin) : undefined;
      return [{ path: u.path, rule: kind ?? u.rule.rule, ...(cel !== undefined ? { cel } : {}), why: u.why, detail: u.reason, ...(u.origin ? { origin: u.origin } : {}) }];
    }),
  }));
}

/** The declarative kind a lowered CEL rule came from (`syntax`, `uniqueBy`, ...). */
function declarativeKind(model: Model, o: RuleOrigin): string | undefined {
  let node: unknown = model.shapes.get(o.shape)?.schema;
  for (const seg of o.pointer.split('/').slice(1)) {
    const key = seg.replace(/~1/g, '/').replace(/~0/g, '~');
    node = node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
  }
  const rules = node && typeof node === 'object' ? (node as { 'x-cluster-rules'?: Array<{ rule: string }> })['x-cluster-rules'] : undefined;
  return o.index !== undefined ? rules?.[o.index]?.rule : undefined;
}

export const crdsGenerator: Generator = {
  name: 'crds',
  generate(model: Model): OutputFile[] {
    const record: OutputFile = { path: 'rules/crd-left-out.json', content: `${JSON.stringify({ crds: leftOutRecords(model) }, null, 2)}\n` };
    return [record, ...model.resources.map((r) => {
      const { manifest, unlowered } = crdFor(model, r);
      const header = [
        '# Code generated by clusterspec (npm run generate) from spec/. DO NOT EDIT.',
        `# A CustomResourceDefinition mirroring ${r.kind}; install it with kubectl apply -f.`,
        ...(unlowered.length
          ? ['# Rules CEL cannot express here (enforced by the built-in validators; listed in out/rules/unenforced.md):',
            ...unlowered.map((u) => `#   ${u.path}: ${u.rule.rule}: ${u.reason}`), '# (machine-readable, with where each rule is written in spec/: out/rules/crd-left-out.json)']
          : []),
      ].join('\n');
      return { path: crdFile(r), content: `${header}\n${stringify(manifest, { lineWidth: 0, aliasDuplicateObjects: false })}` };
    })];
  },
};
