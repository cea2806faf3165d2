// What the server knows about a resource besides its schema: generated into out/routes from the
// spec (or built from a CustomResourceDefinition), read by the registry, the CRD package, the HTTP
// layer and the generators' model alike, so it lives below all of them.
import type { PrinterColumn } from './printer-column.ts';

/** The subresources a built-in resource may have: `/status`, and `/finalize` (upstream's Namespace). */
export type Subresource = 'status' | 'finalize';

export interface ResourceDescriptor {
  kind: string;
  listKind: string;
  group: string;
  version: string;
  plural: string;
  singular: string;
  shortNames: readonly string[];
  categories: readonly string[];
  namespaced: boolean;
  subresources: readonly Subresource[];
  deleteReturns: 'Status' | 'Object';
  maturity: 'stable' | 'beta' | 'alpha';
  generation: boolean;
  updateRequiresResourceVersion: boolean;
  nameSyntax: 'dns1123Subdomain' | 'dns1123Label' | 'pathSegment';
  fieldSelectors: readonly string[];
  printerColumns: readonly PrinterColumn[];
  /** The kind's schema name (definitions.json, out/validators) where it is not the kind: a kind served in two groups (events.cluster.io Event). */
  shape?: string;
}
