// From a CRD and a version name: everything the server needs to serve that version of the custom
// resource. Built once per CRD version (see CustomResourceCache), never per request.
import type { PrinterColumn } from '../api/printer-column.ts';
import type { ResourceDescriptor } from '../api/resource-descriptor.ts';
import { compileSchemaToClosures } from '../schema/compile.ts';
import type { CompiledValidator, FieldError, ResourceContext, Schema } from '../schema/types.ts';
import { crdRuleEngine, markResourceRoot } from './cel-engine.ts';
import { RUNTIME_CEL_COST_BUDGET } from '../cel/index.ts';
import { parseSimplePath, readPath, writePath, type PathSegment } from './paths.ts';
import type { CRDColumn, CRDVersion, CustomResourceDefinition } from './types.ts';
import { deprecationWarning, findVersion, parseKubeVersion, storageVersion } from './versions.ts';
import { jsonRoundTrip } from '../json/clone.ts';
import { isObject } from '../json/is-object.ts';

type Obj = Record<string, unknown>;

/** The group/version of the Scale object the /scale subresource serves. */
export const SCALE_API_VERSION = 'autoscaling/v1';

/** ObjectMeta's fields: other keys under metadata are dropped when decoding, as upstream's coercion does. */
const OBJECT_META_FIELDS = new Set([
  'name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp',
  'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields',
]);

export class CustomResourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CustomResourceError';
  }
}

export interface SelectableField {
  /** The field selector key (`spec.color`): the jsonPath without its leading dot. */
  name: string;
  jsonPath: string;
  /** The selector value: a scalar as text, `""` when absent. */
  read(obj: unknown): string;
}

export interface ScaleValues {
  specReplicas: number;
  statusReplicas: number;
  selector: string;
}

export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
  /**
   * The replicas and selector of an object. Throws CustomResourceError when there is no value at
   * specReplicasPath (upstream answers GET /scale with an InternalError carrying this message).
   */
  read(obj: unknown): ScaleValues;
  /** The autoscaling/v1 Scale object for GET /scale. Throws like read. */
  toScale(obj: unknown): Obj;
  /** Writes spec replicas into the object (PUT/PATCH /scale). */
  setReplicas(obj: Obj, replicas: number): void;
}

export interface WriteResult {
  /** The object after pruning and defaulting (the input is modified in place and returned). */
  object: Obj;
  /** The paths pruning dropped (`spec.unknown`, `metadata.foo`). */
  pruned: string[];
  errors: FieldError[];
}

export interface CustomResourceVersion {
  crd: CustomResourceDefinition;
  version: CRDVersion;
  group: string;
  apiVersion: string;
  kind: string;
  listKind: string;
  plural: string;
  namespaced: boolean;
  served: boolean;
  storage: boolean;
  deprecated: boolean;
  /** The Warning header text for requests to this version (deprecated versions only). */
  warning?: string;
  descriptor: ResourceDescriptor;
  resourceContext: ResourceContext;
  /** Status subresource enabled. */
  status: boolean;
  scale?: ScaleSubresource;
  /** Columns of the Table form exactly as upstream lists them after Name: the CRD's, or Age when none. */
  printerColumns: PrinterColumn[];
  selectableFields: SelectableField[];
  /** The value of a field selector key (`metadata.name`, `metadata.namespace`, selectable fields); undefined for unknown keys. */
  fieldValue(obj: unknown, key: string): string | undefined;
  /** Every error of a create. Call after prepare (prune + defaults). */
  validate(obj: unknown): FieldError[];
  /** Every error of an update from `old` (transition rules run). */
  validateUpdate(obj: unknown, old: unknown): FieldError[];
  /** Drops unknown fields in place (nothing when spec.preserveUnknownFields); returns their paths. */
  prune(obj: unknown): string[];
  /** Fills schema defaults in place. */
  applyDefaults(obj: unknown): void;
  /** Decoding as upstream does on write: metadata coercion, pruning, defaulting; then validation. */
  write(obj: Obj, old?: Obj): WriteResult;
  /**
   * Conversion None of one object: a copy with only apiVersion changed. Serving converts through the
   * CRD's converter instead (conversion.ts: None or Webhook, async, batched, with upstream's checks).
   */
  convert(obj: Obj, toVersion: string): Obj;
}

function maturityOf(name: string): 'stable' | 'beta' | 'alpha' {
  const v = parseKubeVersion(name);
  if (!v) return 'stable';
  return v.stability === 2 ? 'stable' : v.stability === 1 ? 'beta' : 'alpha';
}

function scalarText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

function mustPath(path: string, allowIndex: boolean, what: string): PathSegment[] {
  const segs = parseSimplePath(path, allowIndex);
  if (!segs) throw new CustomResourceError(`invalid ${what} ${JSON.stringify(path)}`);
  return segs;
}

const AGE_COLUMN: PrinterColumn = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
};

function toPrinterColumn(c: CRDColumn): PrinterColumn {
  const out: PrinterColumn = { name: c.name, type: c.type, jsonPath: c.jsonPath, description: c.description ?? '' };
  if (c.format) out.format = c.format;
  if (c.priority !== undefined) out.priority = c.priority;
  return out;
}

function buildScale(cfg: NonNullable<NonNullable<CRDVersion['subresources']>['scale']>): ScaleSubresource {
  const spec = mustPath(cfg.specReplicasPath, false, 'specReplicasPath');
  const status = mustPath(cfg.statusReplicasPath, false, 'statusReplicasPath');
  const selector = cfg.labelSelectorPath ? mustPath(cfg.labelSelectorPath, false, 'labelSelectorPath') : undefined;
  const intAt = (obj: unknown, segs: PathSegment[], path: string): number | undefined => {
    const v = readPath(obj, segs);
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v)) {
      throw new CustomResourceError(`${path} accessor error: ${scalarText(v)} is of the type ${typeof v === 'number' ? 'float64' : typeof v}, expected int64`);
    }
    return v;
  };
  const read = (obj: unknown): ScaleValues => {
    const specReplicas = intAt(obj, spec, cfg.specReplicasPath);
    if (specReplicas === undefined) throw new CustomResourceError(`the spec replicas field ${JSON.stringify(cfg.specReplicasPath)} does not exist`);
    const statusReplicas = intAt(obj, status, cfg.statusReplicasPath) ?? 0;
    const sel = selector ? readPath(obj, selector) : undefined;
    return { specReplicas, statusReplicas, selector: typeof sel === 'string' ? sel : '' };
  };
  return {
    specReplicasPath: cfg.specReplicasPath,
    statusReplicasPath: cfg.statusReplicasPath,
    ...(cfg.labelSelectorPath ? { labelSelectorPath: cfg.labelSelectorPath } : {}),
    read,
    toScale(obj: unknown): Obj {
      const v = read(obj);
      const m = isObject(obj) && isObject(obj.metadata) ? obj.metadata : {};
      const metadata: Obj = {};
      for (const k of ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp']) if (m[k] !== undefined) metadata[k] = m[k];
      const st: Obj = { replicas: v.statusReplicas };
      if (v.selector !== '') st.selector = v.selector;
      return { kind: 'Scale', apiVersion: SCALE_API_VERSION, metadata, spec: { replicas: v.specReplicas }, status: st };
    },
    setReplicas(obj: Obj, replicas: number): void {
      writePath(obj, spec, replicas);
    },
  };
}

/** Builds the serving description of one version of a CRD. Throws CustomResourceError for an unknown version. */
export function buildCustomResourceVersion(crd: CustomResourceDefinition, versionName: string): CustomResourceVersion {
  const version = findVersion(crd, versionName);
  if (!version) throw new CustomResourceError(`version ${JSON.stringify(versionName)} is not defined by ${crd.metadata?.name ?? 'the CustomResourceDefinition'}`);
  const { group } = crd.spec;
  const names = crd.status?.acceptedNames?.kind ? { ...crd.spec.names, ...crd.status.acceptedNames } : crd.spec.names;
  const kind = names.kind ?? '';
  const listKind = names.listKind || `${kind}List`;
  const plural = names.plural ?? '';
  const namespaced = crd.spec.scope === 'Namespaced';
  const apiVersion = `${group}/${version.name}`;
  const statusEnabled = isObject(version.subresources) && isObject(version.subresources.status);
  const resourceContext: ResourceContext = { kind, group, version: version.name, namespaced, nameSyntax: 'dns1123Subdomain' };

  const schema: Schema = (version.schema?.openAPIV3Schema ?? { type: 'object', 'x-cluster-preserve-unknown-fields': true }) as Schema;
  markResourceRoot(schema);
  // the CRD was validated when written; a rule that no longer compiles (a stricter engine since) is reported per object, as upstream
  const compiled: CompiledValidator = compileSchemaToClosures(schema, { cel: crdRuleEngine, resource: resourceContext, celErrorValue: 'type', celCostBudget: RUNTIME_CEL_COST_BUDGET, celCompileErrors: 'report' });
  const preserveAll = crd.spec.preserveUnknownFields === true;

  const selectableFields: SelectableField[] = (version.selectableFields ?? []).slice(0, 8).map((f) => {
    const segs = mustPath(f.jsonPath, false, 'selectable field');
    return { name: segs.map(String).join('.'), jsonPath: f.jsonPath, read: (obj: unknown) => scalarText(readPath(obj, segs)) };
  });
  const selectorKeys = ['metadata.name', ...(namespaced ? ['metadata.namespace'] : []), ...selectableFields.map((f) => f.name)];
  const byKey = new Map(selectableFields.map((f) => [f.name, f]));

  const cols = (version.additionalPrinterColumns ?? []).map(toPrinterColumn);
  const descriptor: ResourceDescriptor = {
    kind,
    listKind,
    group,
    version: version.name,
    plural,
    singular: names.singular || kind.toLowerCase(),
    shortNames: [...(names.shortNames ?? [])],
    categories: [...(names.categories ?? [])],
    namespaced,
    subresources: statusEnabled ? ['status'] : [],
    deleteReturns: 'Object',
    maturity: maturityOf(version.name),
    generation: true,
    updateRequiresResourceVersion: true,
    nameSyntax: 'dns1123Subdomain',
    fieldSelectors: selectorKeys,
    printerColumns: cols,
  };

  const pruneMetadata = (obj: unknown): string[] => {
    if (!isObject(obj) || !isObject(obj.metadata)) return [];
    const out: string[] = [];
    for (const k of Object.keys(obj.metadata)) {
      if (!OBJECT_META_FIELDS.has(k)) {
        delete obj.metadata[k];
        out.push(`metadata.${k}`);
      }
    }
    return out;
  };
  const prune = (obj: unknown): string[] => {
    const dropped = pruneMetadata(obj);
    if (!preserveAll) dropped.push(...compiled.prune(obj));
    return dropped;
  };

  const scaleCfg = version.subresources?.scale;
  return {
    crd,
    version,
    group,
    apiVersion,
    kind,
    listKind,
    plural,
    namespaced,
    served: version.served === true,
    storage: storageVersion(crd) === version.name,
    deprecated: version.deprecated === true,
    ...(version.deprecated ? { warning: deprecationWarning(crd, version.name) } : {}),
    descriptor,
    resourceContext,
    status: statusEnabled,
    ...(scaleCfg ? { scale: buildScale(scaleCfg) } : {}),
    printerColumns: cols.length ? cols : [AGE_COLUMN],
    selectableFields,
    fieldValue(obj: unknown, key: string): string | undefined {
      if (key === 'metadata.name') return scalarText(readPath(obj, ['metadata', 'name']));
      if (key === 'metadata.namespace' && namespaced) return scalarText(readPath(obj, ['metadata', 'namespace']));
      return byKey.get(key)?.read(obj);
    },
    validate: (obj) => compiled.validate(obj),
    validateUpdate: (obj, old) => compiled.validateUpdate(obj, old),
    prune,
    applyDefaults: (obj) => compiled.applyDefaults(obj),
    write(obj: Obj, old?: Obj): WriteResult {
      const pruned = prune(obj);
      compiled.applyDefaults(obj);
      const errors = old === undefined ? compiled.validate(obj) : compiled.validateUpdate(obj, old);
      return { object: obj, pruned, errors };
    },
    convert(obj: Obj, toVersion: string): Obj {
      const copy = jsonRoundTrip(obj);
      copy.apiVersion = `${group}/${toVersion}`;
      return copy;
    },
  };
}

/**
 * Compiled versions of CRDs, rebuilt only when the CRD changes: keyed by uid (or name) and
 * generation when the CRD carries them, else by the CRD object's identity.
 */
export class CustomResourceCache {
  private readonly byKey = new Map<string, { generation: unknown; specJson?: string; versions: Map<string, CustomResourceVersion> }>();
  private readonly byObject = new WeakMap<object, Map<string, CustomResourceVersion>>();

  get(crd: CustomResourceDefinition, versionName: string): CustomResourceVersion {
    const id = crd.metadata?.uid ?? crd.metadata?.name;
    const generation = crd.metadata?.generation;
    let versions: Map<string, CustomResourceVersion> | undefined;
    if (id !== undefined && generation !== undefined) {
      // acceptedNames come from status (no generation bump): part of the key too
      const namesKey = JSON.stringify(crd.status?.acceptedNames ?? null);
      const entry = this.byKey.get(id);
      if (entry && entry.generation === generation && entry.specJson === namesKey) versions = entry.versions;
      else {
        versions = new Map();
        this.byKey.set(id, { generation, specJson: namesKey, versions });
      }
    } else {
      versions = this.byObject.get(crd);
      if (!versions) this.byObject.set(crd, (versions = new Map()));
    }
    let v = versions.get(versionName);
    if (!v) {
      v = buildCustomResourceVersion(crd, versionName);
      versions.set(versionName, v);
    }
    return v;
  }

  /** Forgets a CRD (on delete). */
  delete(crd: CustomResourceDefinition): void {
    const id = crd.metadata?.uid ?? crd.metadata?.name;
    if (id !== undefined) this.byKey.delete(id);
  }
}
