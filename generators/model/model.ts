// The typed Model that every generator reads. Built once from spec/ by load.ts and checked by check.ts.
import type { Schema } from '../../runtime/schema/types.ts';
import type { PrinterColumn } from '../../runtime/api/printer-column.ts';
import type { Subresource } from '../../runtime/api/resource-descriptor.ts';
import type { Verb } from '../../runtime/api/operation.ts';

export type { PrinterColumn, Subresource, Verb };

export interface Model {
  platform: { major: string; minor: string; gitVersion: string };
  groups: GroupVersions[];
  featureGates: FeatureGate[];
  /** Shared operation parameters by name (OpenAPI 3.0 parameter objects). */
  parameters: Record<string, Parameter>;
  /** Which parameters each operation kind takes. */
  operationParameters: Record<OperationKind, string[]>;
  /** Every named shape, by its globally unique name; `$ref`s inside are `#/components/schemas/<Name>`. */
  shapes: Map<string, Shape>;
  /** Resources sorted by group, then kind. */
  resources: Resource[];
}

export interface GroupVersions {
  group: string;
  versions: string[];
}

export interface FeatureGate {
  name: string;
  stage: 'alpha' | 'beta' | 'stable' | 'deprecated';
  default: boolean;
  source: string;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query';
  required?: boolean;
  description: string;
  schema: { type: 'string' | 'integer' | 'boolean'; uniqueItems?: boolean };
}

export type OperationKind = 'get' | 'list' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface Shape {
  name: string;
  /** OpenAPI definition prefix, e.g. `io.cluster.api.core.v1`. */
  package: string;
  /** Spec file that defines it, relative to the repository root. */
  file: string;
  schema: Schema;
}


export interface Resource {
  kind: string;
  group: string;
  version: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  categories: string[];
  scope: 'Namespaced' | 'Cluster';
  subresources: Subresource[];
  /** Verbs of the main resource it does not serve (upstream's storage lacks the interface: Namespace has no DeleteCollection). */
  omitVerbs?: Verb[];
  deleteReturns: 'Status' | 'Object';
  maturity: 'stable' | 'beta' | 'alpha';
  generation: boolean;
  updateRequiresResourceVersion: boolean;
  nameSyntax: 'dns1123Subdomain' | 'dns1123Label' | 'pathSegment';
  fieldSelectors: string[];
  printerColumns: PrinterColumn[];
  documented?: { document: number; section: string };
  /** Spec file, relative to the repository root. */
  file: string;
  /** Shape name of the kind's schema: the kind, unless the spec names it apart (`shape:`). */
  shape: string;
}

/**
 * The name of a resource's list shape: its listKind, or `<shape>List` when the kind's schema is named
 * apart (a kind served in two groups, such as Event in core and events.cluster.io).
 */
export const listShapeOf = (r: Pick<Resource, 'kind' | 'shape' | 'listKind'>): string =>
  r.shape === r.kind ? r.listKind : `${r.shape}List`;

export const groupVersion = (r: Pick<Resource, 'group' | 'version'>): string =>
  r.group ? `${r.group}/${r.version}` : r.version;
